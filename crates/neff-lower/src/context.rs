//! The inputs of a lowering run besides the stream: the kbin facts, the device model, options.

use neff_isa::EngineType;

use super::arch::ArchGate;
use super::error::LowerErrorKind;
use super::resources::{BlockIndex, LowerBlock, LowerResources};
use crate::device::LowerDevice;

/// Options of the runtime's global config that change lowering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LowerOptions {
    /// `gconf.dbg_cc_nop` (spec 001 §3): collectives emit a NOP instead of the WR32 doorbell.
    pub dbg_cc_nop: bool,
    /// Check DIRECT2D slots (queue, operands) but do not keep their [`super::GeneratedDescriptor`]s:
    /// for a caller that only reports the images (`neff load`); up to one per source slot.
    pub skip_descriptors: bool,
}

/// Everything [`super::translate_block`] reads besides the stream.
#[derive(Debug, Clone)]
pub struct LowerContext<'a> {
    /// The subgraph's kbin facts.
    pub resources: &'a LowerResources,
    /// The addresses records write.
    pub device: &'a dyn LowerDevice,
    /// Global-config options.
    pub options: LowerOptions,
    /// Member path of each engine's stream, for error messages (`sg00/pool.bin`).
    pub members: [String; EngineType::COUNT],
    /// `cc_ctx.ccop_owner` (spec 001 §3 instr_col_add): whether this subgraph's collective
    /// triggers ring the doorbell. A load sets it on the kelf's first subgraph only, the CC-top
    /// core (decision D286); a non-owner's trigger is a NOP keeping its events.
    pub ccop_owner: bool,
    /// The physical core the subgraph runs on, when lowering's records are moved there from the
    /// frame core's windows they are written in (neff-load's decision D816); `None`: not moved.
    pub core: Option<crate::physical_core::PhysicalCore>,
    /// The first block of each id of each queue, built from `indexed` (decision D387).
    blocks: BlockIndex,
    /// The resources `blocks` indexes: [`Self::block`] uses the index only while `resources`
    /// is still these (the field is public and could be pointed elsewhere).
    indexed: &'a LowerResources,
}

impl<'a> LowerContext<'a> {
    /// A context whose member paths are `<subgraph>/<engine>.bin`.
    pub fn new(resources: &'a LowerResources, device: &'a dyn LowerDevice, subgraph: &str) -> Self {
        let members = EngineType::ALL.map(|e| {
            if subgraph.is_empty() {
                format!("{}.bin", e.key())
            } else {
                format!("{subgraph}/{}.bin", e.key())
            }
        });
        Self {
            resources,
            device,
            options: LowerOptions::default(),
            members,
            ccop_owner: true,
            core: None,
            blocks: BlockIndex::new(resources),
            indexed: resources,
        }
    }

    /// The first block with id `id` on queue `queue` (a PSEUDO_DMA_TRIGGER's block; spec 003 §4),
    /// by the index when it is the resources' (decision D387), else by a scan: the same block.
    pub fn block(&self, queue: usize, id: u64) -> Option<&'a LowerBlock> {
        let blocks = &self.resources.queues.get(queue)?.blocks;
        if std::ptr::eq(self.resources, self.indexed) {
            return blocks.get(self.blocks.first(queue, id)?);
        }
        blocks.iter().find(|b| b.id == id)
    }

    /// The arch gate of this subgraph on this device (spec 001; decision D288).
    pub fn arch_gate(&self) -> Result<ArchGate, LowerErrorKind> {
        ArchGate::new(self.resources.arch, self.device.arch())
    }

    /// The member path of `engine`'s stream.
    pub fn member(&self, engine: EngineType) -> &str {
        &self.members[engine.index()]
    }
}
