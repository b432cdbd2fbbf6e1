//! What lowering reads from a subgraph's kbin: DMA queues with their rings and blocks, vars
//! (for the dge-table), replica groups, the CC stream count and the target.
//!
//! A flat copy rather than a borrow of the kbin so the translators can be tested from spec bytes
//! alone (spec 003 §7); `from_kbin` fills it from neff-kelf's `Kbin`.

use neff_isa::EngineType;
use neff_kelf::VarType;

/// One engine JSON `dma[]` block placed on a queue's ring (spec 003 §4: "use_raw_count / block_id
/// select which descriptor block").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LowerBlock {
    /// The trigger's block id.
    pub id: u64,
    /// The ring instance the block's descriptors are on.
    pub ring: usize,
    /// Number of descriptors in the block (the tail-pointer increment).
    pub ndesc: u32,
    /// The block's `semaphore`, raised when its transfer completes (reference §3.3).
    pub semaphore: Option<u32>,
    /// How much the semaphore rises: the queue's `num_queues` (reference §3.3: "incremented by
    /// num_queues amount when the transfer is complete"; 1 when absent).
    pub sem_increment: u32,
    /// Bytes the block's descriptors move (decision D271: the destination's sizes).
    pub bytes: u64,
    /// Contiguous pieces the block's descriptors move (decision D836), `None` when a
    /// descriptor's pattern does not say.
    pub runs: Option<u64>,
}

/// One def.json `dma_queue` entry as the kbin holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LowerQueue {
    /// The name PSEUDO_DMA_TRIGGER carries.
    pub name: String,
    /// `owner`: the engine that triggers it.
    pub owner: Option<EngineType>,
    /// def.json `type` (`in`, `out`, `data`, `dynamic`, ...): runtime 2.30.51 triggers the
    /// static (not `dynamic`) queues through broadcast tail registers (decision D580).
    pub ty: String,
    /// `semaphore_set` (or the single `semaphore`).
    pub semaphores: Vec<u32>,
    /// Ring instances (>= 1).
    pub rings: usize,
    /// The blocks of the engine JSONs on this queue.
    pub blocks: Vec<LowerBlock>,
}

/// def.json `type` of the queues the runtime programs per trigger (every other type is static:
/// decision D580).
pub const DYNAMIC_QUEUE: &str = "dynamic";
/// def.json `dma_queue` `type` of a spill / reload queue (a static queue; D580).
pub const DATA_QUEUE: &str = "data";
/// def.json `dma_queue` `type` of an input queue (a static queue; D580, D771).
pub const IN_QUEUE: &str = "in";

impl LowerQueue {
    /// Whether the queue is static: its descriptors are the engine JSONs' blocks, triggered by
    /// count (def.json `type` not `dynamic`; runtime 2.30.51 writes its broadcast registers, D580).
    pub fn is_static(&self) -> bool {
        self.ty != DYNAMIC_QUEUE
    }
}

/// One def.json `var` (the mem_ref_set entry): id, name, type, size, where neffkit places it,
/// a `pointer`'s target and, for a `dge-table`, its `list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LowerVar {
    /// `var_id`.
    pub var_id: u32,
    /// The var name.
    pub name: String,
    /// The var type (`state-buffer`, `input`, ...).
    pub ty: VarType,
    /// The size in bytes (0 when the var declares none, e.g. `SB`).
    pub size: u64,
    /// Byte offset of the var from [`crate::LowerDevice::tensor_base`] (decision
    /// D157: HBM vars one after the other in var_id order, each at its alignment, at least 64).
    pub placement: u64,
    /// `referenced_var_id` of a `pointer` var, else `None`.
    pub referenced_var_id: Option<u32>,
    /// `list` of a `dge-table` var (reference §3.3), else `None`.
    pub dge_list: Option<Vec<u32>>,
}

/// The least alignment of a placed var (one 64-byte DMA line).
const MIN_VAR_ALIGN: u64 = 64;

/// The placement of each mem ref (decision D157): HBM vars in var_id order, each at
/// `max(alignment, 64)` (a power of two; any other alignment counts as 64) after the previous
/// one's end; the state buffer and the vars without bytes of their own take no room. Sizes come
/// from the file, so the sums saturate instead of overflowing (an address past the end is refused
/// when it is used).
fn placements(vars: impl Iterator<Item = (VarType, u64, Option<u64>)>) -> Vec<u64> {
    let mut cursor = 0u64;
    vars.map(|(ty, size, alignment)| {
        if ty == VarType::StateBuffer || size == 0 {
            return cursor;
        }
        let align = alignment
            .filter(|a| a.is_power_of_two())
            .unwrap_or(MIN_VAR_ALIGN)
            .max(MIN_VAR_ALIGN);
        let at = cursor.saturating_add(align - 1) & !(align - 1);
        cursor = at.saturating_add(size);
        at
    })
    .collect()
}

/// The kbin facts lowering needs, for one subgraph.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LowerResources {
    /// DMA queues, in kbin order (the index is the queue's register bank in the device model).
    pub queues: Vec<LowerQueue>,
    /// Vars by id.
    pub vars: Vec<LowerVar>,
    /// `replica_groups` (group id -> ranks); `[[]]` is one trivial group.
    pub replica_groups: Vec<Vec<u32>>,
    /// `cc_streams.num_streams`.
    pub cc_streams: u64,
    /// `al_hal_tpb_arch_type` of the target (2 SUNDA, 3 CAYMAN, 4 MARIANA; spec 001 "arch gate").
    pub arch: u32,
}

impl LowerResources {
    /// The queue named `name` and its index.
    pub fn queue(&self, name: &str) -> Option<(usize, &LowerQueue)> {
        self.queue_by_bytes(name.as_bytes())
    }

    /// The first queue whose name has the bytes `name`, and its index (a trigger slot's raw
    /// name, compared without UTF-8 checking: decision D338).
    pub fn queue_by_bytes(&self, name: &[u8]) -> Option<(usize, &LowerQueue)> {
        (self.queues.iter().enumerate()).find(|(_, q)| q.name.as_bytes() == name)
    }

    /// The var with id `var_id`.
    pub fn var(&self, var_id: u32) -> Option<&LowerVar> {
        self.vars.iter().find(|v| v.var_id == var_id)
    }

    /// The first `dge-table` var (reference §3.2: `DGETable0`).
    pub fn dge_table(&self) -> Option<&LowerVar> {
        self.vars.iter().find(|v| v.dge_list.is_some())
    }
}

/// Each queue's blocks by id (decision D387): a PSEUDO_DMA_TRIGGER names its block by id, and a
/// large stream has a trigger every few slots against queues of tens to thousands of blocks, so
/// the first block of each id is found by binary search instead of a scan of the queue's list.
#[derive(Debug, Clone, Default)]
pub struct BlockIndex {
    /// Per queue (kbin order): (block id, position of the first block with that id), by id.
    by_id: Vec<Vec<(u64, usize)>>,
}

impl BlockIndex {
    /// The index of every queue of `resources`.
    pub fn new(resources: &LowerResources) -> Self {
        let by_id = resources
            .queues
            .iter()
            .map(|q| {
                let mut ids: Vec<(u64, usize)> = q
                    .blocks
                    .iter()
                    .enumerate()
                    .map(|(i, b)| (b.id, i))
                    .collect();
                // Stable by id, so the first position of an id stays first; then one entry per id.
                ids.sort_by_key(|&(id, _)| id);
                ids.dedup_by_key(|&mut (id, _)| id);
                ids
            })
            .collect();
        Self { by_id }
    }

    /// The position in queue `queue`'s blocks of the first block with id `id`: what
    /// `blocks.iter().position(|b| b.id == id)` answers, for the resources the index was built
    /// from.
    pub fn first(&self, queue: usize, id: u64) -> Option<usize> {
        let ids = self.by_id.get(queue)?;
        let at = ids.binary_search_by_key(&id, |&(i, _)| i).ok()?;
        Some(ids[at].1)
    }
}

/// The bytes a block's descriptors move: each descriptor's [`neff_kelf::DmaDesc::bytes`]
/// (decision D271), summed; saturating, so a hostile size cannot overflow.
fn block_bytes(q: &neff_kelf::KbinDmaQueue, b: &neff_kelf::DmaBlockRef) -> u64 {
    let Some(ring) = q.rings.get(b.ring) else {
        return 0;
    };
    ring.descs
        .iter()
        .skip(b.first_desc)
        .take(b.ndesc)
        .map(|d| d.desc.bytes().unwrap_or(u64::MAX))
        .fold(0u64, u64::saturating_add)
}

/// The contiguous pieces a block's descriptors move, summed (decision D836).
fn block_runs(q: &neff_kelf::KbinDmaQueue, b: &neff_kelf::DmaBlockRef) -> Option<u64> {
    let ring = q.rings.get(b.ring)?;
    ring.descs
        .iter()
        .skip(b.first_desc)
        .take(b.ndesc)
        .try_fold(0u64, |n, d| n.checked_add(d.desc.runs()?))
}

impl LowerResources {
    /// Copies what lowering reads from neff-kelf's kbin: queues (kbin order) with their rings and
    /// blocks, vars with dge-table lists, replica groups, the CC stream count and the target.
    pub fn from_kbin(kbin: &neff_kelf::Kbin<'_>) -> Self {
        let queues = kbin
            .dma_queues
            .iter()
            .map(|q| LowerQueue {
                name: q.name.clone(),
                owner: q.owner,
                ty: q.ty.clone(),
                semaphores: q.semaphores.clone(),
                rings: q.rings.len().max(1),
                blocks: q
                    .blocks
                    .iter()
                    .map(|b| LowerBlock {
                        id: b.id,
                        ring: b.ring,
                        ndesc: u32::try_from(b.ndesc).unwrap_or(u32::MAX),
                        semaphore: b.semaphore,
                        sem_increment: q
                            .num_queues
                            .map_or(1, |n| u32::try_from(n.max(1)).unwrap_or(u32::MAX)),
                        bytes: block_bytes(q, b),
                        runs: block_runs(q, b),
                    })
                    .collect(),
            })
            .collect();
        let vars = kbin
            .mem_refs
            .iter()
            .zip(placements(
                kbin.mem_refs
                    .iter()
                    .map(|m| (m.ty, m.size, m.var.alignment)),
            ))
            .map(|(m, placement)| LowerVar {
                var_id: m.var_id,
                name: m.name.clone(),
                ty: m.ty,
                size: m.size,
                placement,
                referenced_var_id: m.var.referenced_var_id,
                dge_list: (m.ty == neff_kelf::VarType::DgeTable).then(|| {
                    let list = m.var.list.as_deref().unwrap_or(&[]);
                    list.iter()
                        .map(|&v| u32::try_from(v).unwrap_or(u32::MAX))
                        .collect()
                }),
            })
            .collect();
        let replica_groups = kbin
            .replica_groups
            .iter()
            .map(|g| {
                g.iter()
                    .map(|&r| u32::try_from(r).unwrap_or(u32::MAX))
                    .collect()
            })
            .collect();
        Self {
            queues,
            vars,
            replica_groups,
            cc_streams: u64::from(kbin.cc_num_streams),
            arch: kbin.target.arch(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// D387: the index answers what a scan for the first block of an id answers, duplicates,
    /// unsorted ids, a missing id and an unknown queue included.
    #[test]
    fn block_index_finds_the_first_block_of_an_id() {
        let block = |id| LowerBlock {
            id,
            ring: 0,
            ndesc: 1,
            semaphore: None,
            sem_increment: 1,
            runs: None,
            bytes: 0,
        };
        let queue = |ids: &[u64]| LowerQueue {
            name: "q".into(),
            owner: None,
            ty: "in".into(),
            semaphores: vec![],
            rings: 1,
            blocks: ids.iter().map(|&i| block(i)).collect(),
        };
        let res = LowerResources {
            queues: vec![queue(&[5, 3, 5, 0, 3, 9]), queue(&[]), queue(&[0, 1, 2])],
            ..LowerResources::default()
        };
        let index = BlockIndex::new(&res);
        for (qi, q) in res.queues.iter().enumerate() {
            for id in 0..12 {
                let scan = q.blocks.iter().position(|b| b.id == id);
                assert_eq!(index.first(qi, id), scan, "queue {qi} id {id}");
            }
        }
        assert_eq!(index.first(3, 0), None);
    }

    /// D157: HBM vars one after the other in var_id order at max(alignment, 64); the state
    /// buffer and sizeless vars take no room; huge sizes saturate instead of wrapping.
    #[test]
    fn vars_are_placed_in_id_order_at_their_alignment() {
        let vars = [
            (VarType::StateBuffer, 0, None),
            (VarType::Input, 32, None),
            (VarType::Input, 32, Some(16384)),
            (VarType::DgeTable, 0, None),
            (VarType::Output, 100, Some(3)),
            (VarType::File, u64::MAX, None),
            (VarType::Input, 8, None),
        ];
        assert_eq!(
            placements(vars.into_iter()),
            [0, 0, 16384, 16416, 16448, 16576, !63]
        );
    }
}
