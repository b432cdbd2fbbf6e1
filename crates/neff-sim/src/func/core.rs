//! One NeuronCore of a run (one subgraph): its engines' streams, semaphores and events, SBUF
//! and PSUM, the PE array's loaded weights, and how its vars resolve (def.json `var`, the DGE
//! table).

use neff_isa::{EngineType, Slot};
use neff_kelf::{Graph, VarType};

use super::error::SlotAt;
use super::memory::OnChip;
use super::pe::Weights;
use crate::registers::Registers;
use crate::sync_state::SyncState;

/// One engine's stream and where it is.
pub(crate) struct EngineRun<'k> {
    /// The engine.
    pub(crate) engine: EngineType,
    /// The `.bin` bytes (whole 64-byte slots).
    pub(crate) slots: &'k [u8],
    /// The next slot.
    pub(crate) pc: usize,
    /// The engine's registers (ALU_OP, offset-register DMAs).
    pub(crate) regs: Registers,
}

impl<'k> EngineRun<'k> {
    /// Slots in the stream.
    pub(crate) fn len(&self) -> usize {
        self.slots.len() / neff_isa::SLOT_BYTES
    }

    /// Whether the stream is finished.
    pub(crate) fn done(&self) -> bool {
        self.pc >= self.len()
    }

    /// Slot `i`.
    pub(crate) fn slot(&self, i: usize) -> Slot<'k> {
        let b = &self.slots[i * neff_isa::SLOT_BYTES..(i + 1) * neff_isa::SLOT_BYTES];
        Slot::from_slice(b).expect("a whole slot")
    }
}

/// A def.json var as the run resolves it.
#[derive(Debug, Clone)]
pub(crate) struct VarRef {
    /// `var_id`.
    pub(crate) id: u32,
    /// The name.
    pub(crate) name: String,
    /// The type.
    pub(crate) ty: VarType,
    /// The DRAM buffer (index into [`super::hbm::Hbm::buffers`]); `None` for the state buffer
    /// and vars without bytes (dge-table).
    pub(crate) buffer: Option<usize>,
}

/// One core.
pub(crate) struct Core<'k> {
    /// The subgraph name.
    pub(crate) name: String,
    /// The graph (its manifests: engine JSON DMA blocks, def.json queues); `None` for a core
    /// built by a unit test from slots alone ([`Core::bare`]).
    pub(crate) graph: Option<&'k Graph<'k>>,
    /// The engines, in `EngineType` order.
    pub(crate) engines: Vec<EngineRun<'k>>,
    /// Semaphores and events.
    pub(crate) sync: SyncState,
    /// SBUF and PSUM.
    pub(crate) chip: OnChip,
    /// The weights the last LDWEIGHTS loaded.
    pub(crate) weights: Option<Weights>,
    /// The vars by id.
    pub(crate) vars: Vec<VarRef>,
    /// The `dge-table` var's list (var ids), if the subgraph has one.
    pub(crate) dge_table: Vec<u64>,
    /// The activation function set the last ACTIVATION_TABLE_LOAD selected.
    pub(crate) act_table: Option<u8>,
    /// The arithmetic done so far.
    pub(crate) work: super::Work,
}

impl<'k> Core<'k> {
    /// A core at the start of a run: one stream per `(engine, slots)` (whole slots), zeroed
    /// memories (`chip`) and registers. `graph` is `None` for a core a unit test builds from
    /// slots alone (then a DMA trigger, which reads the engine JSON, is an error).
    pub(crate) fn new(
        name: String,
        graph: Option<&'k Graph<'k>>,
        streams: &[(EngineType, &'k [u8])],
        vars: Vec<VarRef>,
        dge_table: Vec<u64>,
        chip: OnChip,
    ) -> Self {
        Self {
            name,
            graph,
            engines: streams
                .iter()
                .map(|&(engine, slots)| EngineRun {
                    engine,
                    slots: &slots[..slots.len() / neff_isa::SLOT_BYTES * neff_isa::SLOT_BYTES],
                    pc: 0,
                    regs: Default::default(),
                })
                .collect(),
            sync: Default::default(),
            chip,
            weights: None,
            vars,
            dge_table,
            act_table: None,
            work: Default::default(),
        }
    }

    /// Where slot `slot` of engine `e` is, for messages.
    pub(crate) fn at(&self, e: usize, slot: usize) -> SlotAt {
        let run = &self.engines[e];
        let op = run.slot(slot).opcode();
        SlotAt {
            subgraph: self.name.clone(),
            engine: run.engine,
            slot,
            opcode: op
                .mnemonic()
                .map_or_else(|| format!("opcode {:#04x}", op.0), str::to_string),
        }
    }

    /// The var with id `id`.
    pub(crate) fn var(&self, id: u32) -> Option<&VarRef> {
        self.vars.iter().find(|v| v.id == id)
    }
}
