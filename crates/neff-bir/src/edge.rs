//! One dependency edge: a target and a kind (the spec's `PointerIntPair<Instruction*, 3>`, spec 002 §5).

use crate::edge_kind::EdgeKind;
use crate::ids::InstId;

/// Where an edge points. JSON names its target by instruction name; a name that no instruction
/// carries is kept (bytes are the truth) as [`EdgeTarget::Unknown`] so the verifier can report it and
/// the writer can emit it back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeTarget {
    /// An instruction of the program.
    Inst(InstId),
    /// Index into [`crate::Program::unknown_target_name`]: a name no instruction carries.
    Unknown(u32),
}

impl EdgeTarget {
    /// The instruction, when the target resolved.
    pub fn inst(self) -> Option<InstId> {
        match self {
            EdgeTarget::Inst(id) => Some(id),
            EdgeTarget::Unknown(_) => None,
        }
    }
}

/// A dependency of an instruction on a former one: `{"target": "<name>", "kind": "Flow"}` in JSON
/// (spec 002 §4, §5). Two edges are the same edge when target and kind agree, as the packed
/// pointer-and-tag word of the spec compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Edge {
    /// The former instruction this one waits for.
    pub target: EdgeTarget,
    /// The 3-bit kind tag.
    pub kind: EdgeKind,
}

impl Edge {
    /// An edge to an instruction of the program.
    pub fn new(target: InstId, kind: EdgeKind) -> Edge {
        Edge {
            target: EdgeTarget::Inst(target),
            kind,
        }
    }
}
