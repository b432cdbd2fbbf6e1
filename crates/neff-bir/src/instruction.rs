//! The `bir::Instruction` node (spec 002 §1): the opcode-independent header, the three operand lists,
//! the scheduling block, and the per-opcode keys.

use serde_json::{Map, Value};

use crate::argument::{Argument, OperandList};
use crate::engine::Engine;
use crate::instruction_type::InstructionType;
use crate::schedule::Schedule;
use crate::unique_id::UniqueId;

/// `optin_passes` default (spec 002 §3: `mov [this+0x40], 15`; rated HIGH, not CERTAIN).
pub const DEFAULT_OPTIN_PASSES: u64 = 15;

/// Where an instruction came from (spec 002 §1, +0x38). Only `Internal = 0` is pinned; other values
/// are kept as numbers. Not serialized (decision D90).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Origin(pub u32);

impl Origin {
    /// 0: the constructor's default.
    pub const INTERNAL: Origin = Origin(0);
}

/// One BIR instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    /// `"name"`, unique within the program (+0x18).
    pub name: String,
    /// Origin (+0x38), `Internal` by default.
    pub origin: Origin,
    /// `"optin_passes"` bitmask (+0x40), default 15.
    pub optin_passes: u64,
    /// Unique id (+0x48), allocated when the instruction joins a program.
    pub unique_id: UniqueId,
    /// `"opcode"`: the InstructionType tag (+0x58), the single dispatch key.
    pub opcode: InstructionType,
    /// `"loopnest"` (+0x60), kept structurally.
    pub loopnest: Vec<Value>,
    /// `"predicates"` (+0x78), kept structurally.
    pub predicates: Vec<Value>,
    /// `"engine"` (+0x90).
    pub engine: Engine,
    /// `"engine_id"` (+0x94), 0 by default.
    pub engine_id: i64,
    /// `"ins"` (+0xA0), insertion order.
    pub ins: Vec<Argument>,
    /// `"indirection_ins"` (+0xB0), insertion order.
    pub indirection_ins: Vec<Argument>,
    /// `"outs"` (+0xC0), insertion order.
    pub outs: Vec<Argument>,
    /// The +0xD0 scheduling/dependency block.
    pub schedule: Schedule,
    /// `"dma_blocks"`: the 19th header key, emitted for DMATrigger (InstructionType 67) only
    /// (spec 002 §4). For other opcodes a `dma_blocks` key is an ordinary per-opcode key.
    pub dma_blocks: Option<Value>,
    /// The per-opcode keys (e.g. TensorScalar's `op0`, `const0`, ...) and any unknown key, in order.
    pub op_fields: Map<String, Value>,
}

impl Instruction {
    /// A fresh instruction as the constructor leaves it (spec 002 §3): origin Internal, optin 15,
    /// id uninitialised, engine Unassigned, empty lists.
    pub fn new(name: impl Into<String>, opcode: impl Into<InstructionType>) -> Instruction {
        Instruction {
            name: name.into(),
            origin: Origin::INTERNAL,
            optin_passes: DEFAULT_OPTIN_PASSES,
            unique_id: UniqueId::uninit(),
            opcode: opcode.into(),
            loopnest: Vec::new(),
            predicates: Vec::new(),
            engine: Engine::default(),
            engine_id: 0,
            ins: Vec::new(),
            indirection_ins: Vec::new(),
            outs: Vec::new(),
            schedule: Schedule::default(),
            dma_blocks: None,
            op_fields: Map::new(),
        }
    }

    /// Appends an operand to one of the three lists (`addArgumentIndirectionArgumentOrOutput`,
    /// spec 002 §1: list order is insertion order).
    pub fn add_operand(&mut self, list: OperandList, arg: Argument) {
        self.operands_mut(list).push(arg);
    }

    /// One operand list.
    pub fn operands(&self, list: OperandList) -> &[Argument] {
        match list {
            OperandList::Ins => &self.ins,
            OperandList::IndirectionIns => &self.indirection_ins,
            OperandList::Outs => &self.outs,
        }
    }

    fn operands_mut(&mut self, list: OperandList) -> &mut Vec<Argument> {
        match list {
            OperandList::Ins => &mut self.ins,
            OperandList::IndirectionIns => &mut self.indirection_ins,
            OperandList::Outs => &mut self.outs,
        }
    }

    /// Whether this is a DMATrigger (InstructionType 67), whose header carries `dma_blocks`.
    pub fn is_dma_trigger(&self) -> bool {
        self.opcode == InstructionType::Known(crate::Opcode::DmaTrigger)
    }
}
