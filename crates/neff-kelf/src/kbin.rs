//! The kbin (spec 004 §2, the 424-byte `kbin` struct, as an owned model) and the lookups the
//! lowering needs: queue/block resolution for PSEUDO_DMA_TRIGGER and PSEUDO_DMA_DIRECT2D, replica
//! groups and cc_streams for collectives, mem refs by id or name.

use neff_isa::EngineType;

use crate::def_json::{Fp8ConversionConfig, SbReservation};
use crate::engine_json::DveTables;
use crate::engine_slot::EngineSlot;
use crate::kbin_dma::{DmaBlockRef, DmaRing, KbinDmaQueue};
use crate::mem_ref::MemRef;
use crate::target::Target;
use crate::var::VarType;

/// `kbin.act_function_sets` (+304): the activation table sets the Activation JSON ships.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActFunctionSets {
    /// The set names (`activation_function_sets[]`).
    pub sets: Vec<String>,
    /// `act_semaphore`.
    pub semaphore: Option<u32>,
}

/// The kbin of one subgraph: what gen_kbin emits (spec 004 §2).
#[derive(Debug, Clone, PartialEq)]
pub struct Kbin<'a> {
    /// The subgraph name (`kelf_nn.sg_names[i]`).
    pub name: String,
    /// `kbin.target` (+416), written last.
    pub target: Target,
    /// `kbin.engine[]` (+0..+32): slots in `instr_sets` order (alphabetical: act, dve, pe, pool,
    /// sp -> 0..4), each keeping its true `eng_type`. Fewer than 5 when def.json names fewer.
    pub engines: Vec<EngineSlot<'a>>,
    /// `kbin.dma[]` (+40..): the queues, in name order.
    pub dma_queues: Vec<KbinDmaQueue>,
    /// `kbin.mem_ref_set` (+296): `mem_refs[var_id]`, `nmem == vars`.
    pub mem_refs: Vec<MemRef>,
    /// `kbin.act_function_sets` (+304), when the Activation JSON names sets.
    pub act_function_sets: Option<ActFunctionSets>,
    /// `kbin.dve_config` (+328): the DVE table sets.
    pub dve_tables: Vec<DveTables>,
    /// `kbin.replica_groups` (+344).
    pub replica_groups: Vec<Vec<u64>>,
    /// `kbin.src_target_pairs` (+360).
    pub src_target_pairs: Vec<Vec<u64>>,
    /// `kbin.ucode_libs` (+376): library member paths.
    pub ucode_libs: Vec<String>,
    /// `kbin.sb_carveouts` (+336): def.json `runtime_statebuffer_reservation`.
    pub sb_carveouts: Vec<SbReservation>,
    /// `kbin.fp8_conv_cfg` (+400).
    pub fp8_conversion_config: Option<Fp8ConversionConfig>,
    /// `kbin.cc_streams.num_streams` (+392): def.json value, 1 when absent (spec 004 §1).
    pub cc_num_streams: u32,
    /// Non-fatal findings (e.g. a stream whose size is not a multiple of 64).
    pub warnings: Vec<String>,
}

/// What a PSEUDO_DMA_TRIGGER `(queue name, block_id)` resolves to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DmaTriggerTarget<'k> {
    /// The queue's index in [`Kbin::dma_queues`].
    pub queue_index: usize,
    /// The queue.
    pub queue: &'k KbinDmaQueue,
    /// The ring's index in the queue.
    pub ring_index: usize,
    /// The ring the block's descriptors are on.
    pub ring: &'k DmaRing,
    /// The block.
    pub block: &'k DmaBlockRef,
}

/// What a PSEUDO_DMA_DIRECT2D's queue resolves to: the queue and the subgraph's DGE table var.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Direct2dTarget<'k> {
    /// The queue's index in [`Kbin::dma_queues`].
    pub queue_index: usize,
    /// The queue.
    pub queue: &'k KbinDmaQueue,
    /// The `dge-table` var (reference §3.3: trn2 `DGETable0`), if the subgraph has one.
    pub dge_table: Option<&'k MemRef>,
}

impl<'a> Kbin<'a> {
    /// The slots in `EngineType` order (PE, ACT, POOL, DVE, SP), the order every report shows
    /// engines in (decision D340); [`engines`](Self::engines) keeps the kbin's slot order and
    /// each slot its `slot` index.
    pub fn engines_by_type(&self) -> Vec<&EngineSlot<'a>> {
        let mut slots: Vec<&EngineSlot<'a>> = self.engines.iter().collect();
        slots.sort_by_key(|s| s.eng_type.index());
        slots
    }

    /// The slot holding engine `e` (search by `eng_type`, never by slot index).
    pub fn engine(&self, e: EngineType) -> Option<&EngineSlot<'a>> {
        self.engines.iter().find(|s| s.eng_type == e)
    }

    /// The slot of an engine named either way (`pe`, `PE`, `Activation`, ...; decision D3).
    pub fn engine_by_name(&self, name: &str) -> Option<&EngineSlot<'a>> {
        EngineType::from_name(name).and_then(|e| self.engine(e))
    }

    /// The queue called `name` and its index.
    pub fn dma_queue(&self, name: &str) -> Option<(usize, &KbinDmaQueue)> {
        self.dma_queues
            .iter()
            .enumerate()
            .find(|(_, q)| q.name == name)
    }

    /// Resolves a PSEUDO_DMA_TRIGGER: the queue name it carries (or a ring instance name) and
    /// its `block_id` -> queue, ring and block (spec 003 §4: "the runtime resolves that name
    /// (via def.json dma_queue -> kbin_dma_ring)"; `block_id` selects the engine JSON block).
    pub fn dma_trigger(&self, queue: &str, block_id: u64) -> Option<DmaTriggerTarget<'_>> {
        self.dma_queues
            .iter()
            .enumerate()
            .find_map(|(queue_index, q)| {
                let by_queue = q.name == queue;
                let block = q.blocks.iter().find(|b| {
                    b.id == block_id
                        && (by_queue || q.rings.get(b.ring).is_some_and(|r| r.name == queue))
                })?;
                let ring = q.rings.get(block.ring)?;
                Some(DmaTriggerTarget {
                    queue_index,
                    queue: q,
                    ring_index: block.ring,
                    ring,
                    block,
                })
            })
    }

    /// Resolves a PSEUDO_DMA_DIRECT2D's queue and the DGE table var it generates descriptors
    /// from (reference §3.3: dynamic queues + a `dge-table` var).
    pub fn direct2d(&self, queue: &str) -> Option<Direct2dTarget<'_>> {
        let (queue_index, q) = self.dma_queue(queue)?;
        let dge_table = self.mem_refs.iter().find(|m| m.ty == VarType::DgeTable);
        Some(Direct2dTarget {
            queue_index,
            queue: q,
            dge_table,
        })
    }

    /// The mem ref with id `var_id` (the set is indexed by var_id).
    pub fn mem_ref(&self, var_id: u32) -> Option<&MemRef> {
        self.mem_refs.get(var_id as usize)
    }

    /// The mem ref of the var called `name`.
    pub fn mem_ref_named(&self, name: &str) -> Option<&MemRef> {
        self.mem_refs.iter().find(|m| m.name == name)
    }

    /// Replica group `group_id` (the collective's `group_id`, spec 003 §6).
    pub fn replica_group(&self, group_id: usize) -> Option<&[u64]> {
        self.replica_groups.get(group_id).map(Vec::as_slice)
    }
}
