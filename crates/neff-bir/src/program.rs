//! A BIR document (reference §5.1: `{attributes, functions[{name, attributes, allocations,
//! blocks[{name, instructions}]}], arch, version}`) holding instructions in an arena.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::edge::{Edge, EdgeTarget};
use crate::edge_kind::EdgeKind;
use crate::error::{ModelError, escape_pointer_token};
use crate::ids::{BlockId, InstId, LoopId};
use crate::instruction::Instruction;

/// A function (`sg0000`, ...): top-level blocks in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// `"name"`.
    pub name: String,
    /// `"attributes"` (e.g. `["need_dce"]`), kept structurally.
    pub attributes: Option<Value>,
    /// `"allocations"`, kept structurally.
    pub allocations: Option<Value>,
    /// `"blocks"`, in order.
    pub blocks: Vec<BlockId>,
    /// Unknown keys, in order.
    pub extras: Map<String, Value>,
}

/// An entry of a block's `"instructions"`: an instruction or a nested loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    /// An instruction.
    Inst(InstId),
    /// A `{"opcode": "Loop", "LoopAxis": ..., "blocks": [...]}` entry.
    Loop(LoopId),
}

/// A basic block: ordered items.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// `"name"`.
    pub name: String,
    /// `"instructions"`, in order.
    pub items: Vec<Item>,
    /// Unknown keys, in order.
    pub extras: Map<String, Value>,
    /// Where the block sits (for JSON pointers).
    pub parent: BlockParent,
}

/// A block's place: the `index`-th block of a function or of a loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockParent {
    /// `functions[f].blocks[index]`.
    Function {
        /// Function index.
        function: usize,
        /// Position in its `blocks`.
        index: usize,
    },
    /// `<loop>.blocks[index]`.
    Loop {
        /// The loop.
        parent: LoopId,
        /// Position in its `blocks`.
        index: usize,
    },
}

/// A nested loop block (reference §5.1).
#[derive(Clone, Debug, PartialEq)]
pub struct Loop {
    /// Every key but `"opcode"` and `"blocks"` (`"LoopAxis"` {name, lb, ub, stride}, ...), in order.
    pub fields: Map<String, Value>,
    /// `"blocks"`, in order.
    pub blocks: Vec<BlockId>,
    /// The block holding this loop and the position in its items.
    pub block: BlockId,
    /// Position in that block's items.
    pub index: usize,
}

/// A whole BIR document. Instructions live in an arena indexed by [`InstId`]; functions, blocks and
/// loops give their program order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Program {
    /// `"attributes"` (e.g. `{"neuron_core_id": 0}`).
    pub attributes: Option<Value>,
    /// `"functions"`.
    pub functions: Vec<Function>,
    /// `"arch"` (e.g. `"gen3"`).
    pub arch: Option<Value>,
    /// `"version"` (e.g. `2`).
    pub version: Option<Value>,
    /// Unknown top-level keys, in order.
    pub extras: Map<String, Value>,
    pub(crate) insts: Vec<Instruction>,
    pub(crate) locations: Vec<(BlockId, usize)>,
    pub(crate) blocks: Vec<Block>,
    pub(crate) loops: Vec<Loop>,
    pub(crate) names: HashMap<String, InstId>,
    pub(crate) unknown_targets: Vec<String>,
    pub(crate) next_unique_id: u32,
}

fn index_u32(len: usize) -> Result<u32, ModelError> {
    u32::try_from(len).map_err(|_| ModelError::TooMany(u32::MAX as usize))
}

impl Program {
    /// An empty document.
    pub fn new() -> Program {
        Program::default()
    }

    /// Number of instructions.
    pub fn len(&self) -> usize {
        self.insts.len()
    }

    /// Whether there is no instruction.
    pub fn is_empty(&self) -> bool {
        self.insts.is_empty()
    }

    /// The instruction `id`.
    pub fn inst(&self, id: InstId) -> Option<&Instruction> {
        self.insts.get(id.index())
    }

    /// The instruction `id`, mutably. Edit dependencies through [`Program::add_dependency`] so the
    /// reverse descendents list stays right.
    pub fn inst_mut(&mut self, id: InstId) -> Option<&mut Instruction> {
        self.insts.get_mut(id.index())
    }

    /// All instructions with their ids, in arena order.
    pub fn insts(&self) -> impl ExactSizeIterator<Item = (InstId, &Instruction)> {
        self.insts
            .iter()
            .enumerate()
            .map(|(i, inst)| (InstId(i as u32), inst))
    }

    /// The block `id`.
    pub fn block(&self, id: BlockId) -> Option<&Block> {
        self.blocks.get(id.index())
    }

    /// The loop `id`.
    pub fn loop_(&self, id: LoopId) -> Option<&Loop> {
        self.loops.get(id.index())
    }

    /// The instruction named `name` (the first one, if a file repeats a name).
    pub fn find(&self, name: &str) -> Option<InstId> {
        self.names.get(name).copied()
    }

    /// The name an unresolved edge target carries.
    pub fn unknown_target_name(&self, index: u32) -> Option<&str> {
        self.unknown_targets.get(index as usize).map(String::as_str)
    }

    /// The name of an edge's target, resolved or not.
    pub fn target_name(&self, target: EdgeTarget) -> &str {
        match target {
            EdgeTarget::Inst(id) => self.inst(id).map_or("", |i| i.name.as_str()),
            EdgeTarget::Unknown(k) => self.unknown_target_name(k).unwrap_or(""),
        }
    }

    /// Adds a function with no blocks; returns its index.
    pub fn add_function(&mut self, name: impl Into<String>) -> usize {
        self.functions.push(Function {
            name: name.into(),
            attributes: None,
            allocations: None,
            blocks: Vec::new(),
            extras: Map::new(),
        });
        self.functions.len() - 1
    }

    /// Appends a block to function `function`.
    pub fn add_block(
        &mut self,
        function: usize,
        name: impl Into<String>,
    ) -> Result<BlockId, ModelError> {
        let id = BlockId(index_u32(self.blocks.len())?);
        let func = self
            .functions
            .get_mut(function)
            .ok_or(ModelError::TooMany(function))?;
        let parent = BlockParent::Function {
            function,
            index: func.blocks.len(),
        };
        func.blocks.push(id);
        self.blocks.push(Block {
            name: name.into(),
            items: Vec::new(),
            extras: Map::new(),
            parent,
        });
        Ok(id)
    }

    /// Appends a loop (with `fields` such as `LoopAxis`) to block `block`; returns it.
    pub fn add_loop(
        &mut self,
        block: BlockId,
        fields: Map<String, Value>,
    ) -> Result<LoopId, ModelError> {
        let id = LoopId(index_u32(self.loops.len())?);
        let index = self.block_items_len(block)?;
        self.blocks[block.index()].items.push(Item::Loop(id));
        self.loops.push(Loop {
            fields,
            blocks: Vec::new(),
            block,
            index,
        });
        Ok(id)
    }

    /// Appends a block to loop `parent`.
    pub fn add_loop_block(
        &mut self,
        parent: LoopId,
        name: impl Into<String>,
    ) -> Result<BlockId, ModelError> {
        let id = BlockId(index_u32(self.blocks.len())?);
        let lp = self
            .loops
            .get_mut(parent.index())
            .ok_or(ModelError::TooMany(parent.index()))?;
        let index = lp.blocks.len();
        lp.blocks.push(id);
        self.blocks.push(Block {
            name: name.into(),
            items: Vec::new(),
            extras: Map::new(),
            parent: BlockParent::Loop { parent, index },
        });
        Ok(id)
    }

    fn block_items_len(&self, block: BlockId) -> Result<usize, ModelError> {
        self.blocks
            .get(block.index())
            .map(|b| b.items.len())
            .ok_or(ModelError::TooMany(block.index()))
    }

    /// Appends `inst` to `block` and allocates its unique id unless it already carries one (the
    /// constructor's `getUniqueId`, spec 002 §3). The first instruction of a name is what
    /// [`Program::find`] returns.
    pub fn push(&mut self, block: BlockId, mut inst: Instruction) -> Result<InstId, ModelError> {
        let id = InstId(index_u32(self.insts.len())?);
        let index = self.block_items_len(block)?;
        if inst.unique_id.get().is_none() {
            let uid = self.next_unique_id;
            inst.unique_id.init(uid, &inst.name)?;
        }
        if let Some(uid) = inst.unique_id.get() {
            self.next_unique_id = self.next_unique_id.max(uid.saturating_add(1));
        }
        self.names.entry(inst.name.clone()).or_insert(id);
        self.blocks[block.index()].items.push(Item::Inst(id));
        self.locations.push((block, index));
        self.insts.push(inst);
        Ok(id)
    }

    /// The spec's `addDependency(former, kind, loop_carried)` (spec 002 §5): `inst` waits for
    /// `former`. Rejects self-edges and unknown ids; returns whether the edge was new. Normal edges
    /// also enter `former`'s descendents list.
    pub fn add_dependency(
        &mut self,
        inst: InstId,
        former: InstId,
        kind: EdgeKind,
        loop_carried: bool,
    ) -> Result<bool, ModelError> {
        self.check_edge(inst, former)?;
        let sched = &mut self.insts[inst.index()].schedule;
        let list = if loop_carried {
            &mut sched.loop_carried
        } else {
            &mut sched.dependencies
        };
        let added = list.insert(Edge::new(former, kind));
        if added && !loop_carried {
            self.insts[former.index()].schedule.descendents.push(inst);
        }
        Ok(added)
    }

    /// [`Program::add_dependency`] with the kind given as its raw 3-bit tag, rejecting out-of-range
    /// values ("Integer too large for field", spec 002 §5).
    pub fn add_dependency_bits(
        &mut self,
        inst: InstId,
        former: InstId,
        kind_bits: u8,
        loop_carried: bool,
    ) -> Result<bool, ModelError> {
        let kind = EdgeKind::from_bits(kind_bits)?;
        self.add_dependency(inst, former, kind, loop_carried)
    }

    pub(crate) fn check_edge(&self, inst: InstId, former: InstId) -> Result<(), ModelError> {
        let Some(this) = self.inst(inst) else {
            return Err(ModelError::NoSuchInstruction(inst));
        };
        if self.inst(former).is_none() {
            return Err(ModelError::NoSuchInstruction(former));
        }
        if inst == former {
            return Err(ModelError::SelfEdge(this.name.clone()));
        }
        Ok(())
    }

    /// Recomputes every descendents list from the normal dependency lists (arena order, then list
    /// order, so the result is deterministic).
    pub fn rebuild_descendents(&mut self) {
        for inst in &mut self.insts {
            inst.schedule.descendents.clear();
        }
        for i in 0..self.insts.len() {
            let n = self.insts[i].schedule.dependencies.len();
            for k in 0..n {
                let edge = self.insts[i].schedule.dependencies.as_slice()[k];
                if let EdgeTarget::Inst(t) = edge.target
                    && let Some(target) = self.insts.get_mut(t.index())
                {
                    target.schedule.descendents.push(InstId(i as u32));
                }
            }
        }
    }

    /// The JSON pointer of instruction `id` in the document (e.g.
    /// `/functions/0/blocks/0/instructions/3`).
    pub fn pointer(&self, id: InstId) -> String {
        match self.locations.get(id.index()) {
            Some(&(block, index)) => format!("{}/instructions/{index}", self.block_pointer(block)),
            None => String::new(),
        }
    }

    /// The JSON pointer of block `id`.
    pub fn block_pointer(&self, id: BlockId) -> String {
        let Some(block) = self.block(id) else {
            return String::new();
        };
        match block.parent {
            BlockParent::Function { function, index } => {
                format!("/functions/{function}/blocks/{index}")
            }
            BlockParent::Loop { parent, index } => match self.loop_(parent) {
                Some(lp) => format!(
                    "{}/instructions/{}/blocks/{index}",
                    self.block_pointer(lp.block),
                    lp.index
                ),
                None => String::new(),
            },
        }
    }

    /// The pointer of a key inside instruction `id`.
    pub fn key_pointer(&self, id: InstId, key: &str) -> String {
        format!("{}/{}", self.pointer(id), escape_pointer_token(key))
    }

    /// Instructions of a function in program order (nested loops flattened in place).
    pub fn function_insts(&self, function: usize) -> Vec<InstId> {
        let mut out = Vec::new();
        if let Some(f) = self.functions.get(function) {
            for &b in &f.blocks {
                self.collect_block(b, &mut out);
            }
        }
        out
    }

    fn collect_block(&self, block: BlockId, out: &mut Vec<InstId>) {
        let Some(b) = self.block(block) else { return };
        for item in &b.items {
            match *item {
                Item::Inst(id) => out.push(id),
                Item::Loop(l) => {
                    if let Some(lp) = self.loop_(l) {
                        for &inner in &lp.blocks {
                            self.collect_block(inner, out);
                        }
                    }
                }
            }
        }
    }

    /// Total number of edges in the normal and loop-carried lists.
    pub fn edge_count(&self) -> usize {
        self.insts
            .iter()
            .map(|i| i.schedule.dependencies.len() + i.schedule.loop_carried.len())
            .sum()
    }
}
