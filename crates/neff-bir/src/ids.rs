//! Arena indices: instructions, blocks and loops are addressed by `u32` newtypes, never pointers
//! (cranelift style; the spec's `Instruction*` of spec 002 §5 becomes an [`InstId`]).

/// Index of an instruction in its [`crate::Program`]'s arena (the spec's `Instruction*`, spec 002 §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstId(pub u32);

impl InstId {
    /// The arena slot as a `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Index of a basic block in its [`crate::Program`] (`{"name", "instructions"}`, reference §5.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

impl BlockId {
    /// The arena slot as a `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Index of a nested `Loop` block in its [`crate::Program`] (reference §5.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LoopId(pub u32);

impl LoopId {
    /// The arena slot as a `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
