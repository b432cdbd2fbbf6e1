//! The compiler's BIR instruction IR (spec 002): model, JSON read/write, dependencies, verifier,
//! statistics and graph export.
//!
//! Instructions live in an arena of a [`Program`] indexed by [`InstId`]; functions own blocks, blocks
//! own ordered items (instructions and nested loops). Each [`Instruction`] carries the header of
//! spec 002 §1 and the scheduling block of §2; each dependency is an [`Edge`] (target, [`EdgeKind`]),
//! stored in a [`DepList`] that is both ordered and a membership set (§2, §5).
//!
//! ```
//! use neff_bir::{EdgeKind, Instruction, Opcode, Program, json};
//! let mut p = Program::new();
//! let f = p.add_function("sg0000");
//! let b = p.add_block(f, "Block1").unwrap();
//! let a = p.push(b, Instruction::new("a", Opcode::TensorCopy)).unwrap();
//! let c = p.push(b, Instruction::new("c", Opcode::TensorTensor)).unwrap();
//! p.add_dependency(c, a, EdgeKind::Flow, false).unwrap();
//! let text = json::to_string(&p, json::Style::Canonical);
//! assert!(text.contains(r#""dependencies":[{"target":"a","kind":"Flow"}]"#));
//! assert_eq!(json::from_str(&text).unwrap(), p);
//! assert!(neff_bir::verify(&p).is_empty());
//! ```

mod argument;
mod concurrent;
mod cycle;
mod dep_list;
mod edge;
mod edge_kind;
mod engine;
mod error;
pub mod generate;
mod graph;
mod ids;
mod instruction;
mod instruction_type;
mod json_read;
mod json_write;
mod program;
mod read_file;
mod schedule;
mod stats;
mod unique_id;
mod verify;

pub use argument::{ApDim, ArgKind, Argument, OperandList};
pub use concurrent::DepCollector;
pub use cycle::{find_cycle, topo_order};
pub use dep_list::DepList;
pub use edge::{Edge, EdgeTarget};
pub use edge_kind::EdgeKind;
pub use engine::{Engine, EngineKind};
pub use error::{EdgeKindError, JsonError, ModelError, escape_pointer_token};
pub use graph::{DotOptions, edge_style, to_dot};
pub use ids::{BlockId, InstId, LoopId};
pub use instruction::{DEFAULT_OPTIN_PASSES, Instruction, Origin};
pub use instruction_type::{InstructionType, Opcode, OpcodeInfo, OperandRule};
pub use program::{Block, BlockParent, Function, Item, Loop, Program};
pub use schedule::Schedule;
pub use stats::Stats;
pub use unique_id::UniqueId;
pub use verify::{Problem, ProblemKind, verify};

/// JSON read and write (spec 002 §4; reference §5.1 document form).
pub mod json {
    pub use crate::json_read::{LOOP_OPCODE, from_slice, from_str};
    pub use crate::json_write::{HEADER_KEYS, Style, to_string, to_vec, to_writer};
    pub use crate::read_file::{ReadError, read_bytes, read_path};
}
