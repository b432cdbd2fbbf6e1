//! The kbin DMA fill (spec 004 §2 step 2): def.json queues -> ring instances -> descriptors, with
//! the engine JSON blocks indexed by (queue, block id) for PSEUDO_DMA_TRIGGER (spec 003 §4-§5).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use neff_isa::EngineType;

use crate::dma_block::DmaDesc;
use crate::dtype::KbinDtype;
use crate::error::{KelfError, Location, Result};
use crate::kelf::Graph;
use crate::var::Var;

/// "Runtime supports maximum of %u semaphores per queue set" (spec 004 §2): 32.
pub const MAX_SEMAPHORES_PER_QUEUE_SET: usize = 32;

/// One lowered DMA descriptor (`dma_desc::dump`; the data arm).
#[derive(Debug, Clone, PartialEq)]
pub struct KbinDmaDesc {
    /// The block the descriptor belongs to.
    pub block_id: u64,
    /// `op` (`copy` when absent).
    pub op: String,
    /// The source var's id, when `from` names a var.
    pub from_var_id: Option<u32>,
    /// The destination var's id, when `to` names a var.
    pub to_var_id: Option<u32>,
    /// The source dtype (spec 004 §4 table).
    pub from_dtype: Option<KbinDtype>,
    /// The destination dtype.
    pub to_dtype: Option<KbinDtype>,
    /// The full descriptor as parsed (shared with the engine JSON's block).
    pub desc: Arc<DmaDesc>,
}

/// One ring instance of a queue (`dma_ring_instance`): a name and its descriptors.
#[derive(Debug, Clone, PartialEq)]
pub struct DmaRing {
    /// The instance name (the queue's own name for a single-instance queue; decision D36).
    pub name: String,
    /// The descriptors, in block order then `desc[]` order.
    pub descs: Vec<KbinDmaDesc>,
}

/// One engine JSON `dma[]` block as placed on a ring.
#[derive(Debug, Clone, PartialEq)]
pub struct DmaBlockRef {
    /// `id`: the trigger's block id.
    pub id: u64,
    /// The engine whose JSON holds the block.
    pub engine: EngineType,
    /// The ring (index into [`KbinDmaQueue::rings`]) the block's descriptors are on.
    pub ring: usize,
    /// The first descriptor's index in that ring.
    pub first_desc: usize,
    /// The number of descriptors.
    pub ndesc: usize,
    /// `semaphore`, incremented when the transfer completes.
    pub semaphore: Option<u32>,
    /// `event`.
    pub event: Option<u32>,
    /// Where the block is (engine JSON member and pointer).
    pub at: Location,
}

/// One DMA queue (`kbin_dma_t`).
#[derive(Debug, Clone, PartialEq)]
pub struct KbinDmaQueue {
    /// The queue name (what PSEUDO_DMA_TRIGGER carries).
    pub name: String,
    /// The engine that triggers it (def.json `owner`).
    pub owner: Option<EngineType>,
    /// `type` (`in`, `out`, `data`, `dynamic`, ...).
    pub ty: String,
    /// `num_queues`.
    pub num_queues: Option<u64>,
    /// trn2 `dynamic_dma` (a dynamic queue's state-buffer scratch): which dynamic queues have it
    /// decides the runtime's DGE queue masks (decision D770).
    pub dynamic_dma: Option<crate::DynamicDma>,
    /// The semaphore set (<= 32).
    pub semaphores: Vec<u32>,
    /// The ring instances.
    pub rings: Vec<DmaRing>,
    /// The blocks triggered on this queue, in engine (alphabetical) then `dma[]` order.
    pub blocks: Vec<DmaBlockRef>,
}

impl KbinDmaQueue {
    /// The block with trigger id `id`.
    pub fn block(&self, id: u64) -> Option<&DmaBlockRef> {
        self.blocks.iter().find(|b| b.id == id)
    }

    /// The total descriptors over all rings.
    pub fn ndesc(&self) -> usize {
        self.rings.iter().map(|r| r.descs.len()).sum()
    }

    /// Whether this is an activation-table load queue (decision D37: `type` `act_load`).
    pub fn is_act_load(&self) -> bool {
        is_act_load_type(&self.ty)
    }
}

fn is_act_load_type(ty: &str) -> bool {
    matches!(ty.to_ascii_lowercase().as_str(), "act_load" | "act-load")
}

/// Whether a DMA fill keeps the lowered descriptors or only checks them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Descriptors {
    /// Every ring gets its descriptors.
    Keep,
    /// Each descriptor is checked (its vars resolve) and counted in its block, not kept: the
    /// rings stay empty ([`crate::Kelf::check_kbins`]).
    Check,
}

/// Builds the queues of a subgraph: each def.json queue with its rings, then every engine
/// block placed on its queue (or queue instance); checks the 32-semaphore limit and the
/// single act-load queue gate (spec 004 §2).
pub fn build_dma(g: &Graph<'_>, vars: &BTreeMap<String, Var>) -> Result<Vec<KbinDmaQueue>> {
    build_dma_with(g, vars, Descriptors::Keep)
}

/// [`build_dma`], keeping or only checking the descriptors.
pub(crate) fn build_dma_with(
    g: &Graph<'_>,
    vars: &BTreeMap<String, Var>,
    descs: Descriptors,
) -> Result<Vec<KbinDmaQueue>> {
    let def_at = Location::new(&g.def_member, "");
    let mut queues = Vec::new();
    let mut act_load: Option<String> = None;
    for (name, q) in g.def.dma_queue.iter().flatten() {
        let at = def_at.key("dma_queue").key(name);
        let owner = match &q.owner {
            Some(o) => Some(
                EngineType::from_name(o).ok_or_else(|| KelfError::UnknownEngine {
                    at: at.key("owner"),
                    name: o.clone(),
                })?,
            ),
            None => None,
        };
        let semaphores = q.semaphores();
        if semaphores.len() > MAX_SEMAPHORES_PER_QUEUE_SET {
            let key = if q.semaphore_set.is_some() {
                "semaphore_set"
            } else {
                "semaphore"
            };
            return Err(KelfError::TooManySemaphores {
                at: at.key(key),
                queue: name.clone(),
                max: MAX_SEMAPHORES_PER_QUEUE_SET,
                found: semaphores.len(),
            });
        }
        if is_act_load_type(&q.ty) {
            if let Some(first) = &act_load {
                return Err(KelfError::MultipleActLoadQueues {
                    member: g.def_member.clone(),
                    first: first.clone(),
                    second: name.clone(),
                });
            }
            act_load = Some(name.clone());
        }
        let rings = q
            .instance_names(name)
            .into_iter()
            .map(|name| DmaRing {
                name,
                descs: Vec::new(),
            })
            .collect();
        queues.push(KbinDmaQueue {
            name: name.clone(),
            owner,
            ty: q.ty.clone(),
            num_queues: q.num_queues,
            dynamic_dma: q.dynamic_dma.clone(),
            semaphores,
            rings,
            blocks: Vec::new(),
        });
    }
    place_blocks(g, vars, &mut queues, descs)?;
    Ok(queues)
}

/// The (queue, ring) each name a block may be addressed by goes to: a queue name means its
/// first ring; otherwise a ring instance name (decision D36); the first such ring wins, as a
/// search in queue order would find it — [`crate::ring_named`]'s rule, hashed.
fn ring_index(queues: &[KbinDmaQueue]) -> HashMap<String, (usize, usize)> {
    let mut index = HashMap::new();
    for (qi, q) in queues.iter().enumerate() {
        index.insert(q.name.clone(), (qi, 0));
    }
    for (qi, q) in queues.iter().enumerate() {
        for (ri, r) in q.rings.iter().enumerate() {
            index.entry(r.name.clone()).or_insert((qi, ri));
        }
    }
    index
}

/// Places every engine JSON block on its ring, resolving descriptor vars to ids by name in
/// def.json `var` (not through the mem_ref_set, which gen_kbin builds after the DMA fill).
/// Lookups are hashed and locations are built only for an error (issue 34: real engine JSONs
/// carry thousands of blocks and descriptors).
fn place_blocks(
    g: &Graph<'_>,
    vars: &BTreeMap<String, Var>,
    queues: &mut [KbinDmaQueue],
    descs: Descriptors,
) -> Result<()> {
    let var_ids: HashMap<&str, u32> = vars
        .iter()
        .map(|(name, v)| (name.as_str(), v.var_id))
        .collect();
    let rings = ring_index(queues);
    let mut placed: HashMap<(usize, u64), usize> = HashMap::new();
    for p in &g.engines {
        let (Some(json), Some(member)) = (&p.json, &p.json_member) else {
            continue;
        };
        for (bi, block) in json.dma_blocks().iter().enumerate() {
            let at = || Location::new(member, format!("/dma/{bi}"));
            let (qname, qkey) = match (&block.queue, &block.instance_name) {
                (Some(q), _) => (q, "queue"),
                (None, Some(i)) => (i, "instance_name"),
                (None, None) => {
                    return Err(KelfError::MissingKey {
                        at: at(),
                        key: "queue",
                    });
                }
            };
            let &(qi, ri) = rings
                .get(qname.as_str())
                .ok_or_else(|| KelfError::UnknownQueue {
                    at: at().key(qkey),
                    queue: qname.clone(),
                })?;
            let queue = &mut queues[qi];
            if let Some(&first) = placed.get(&(qi, block.id)) {
                return Err(KelfError::DuplicateDmaBlock {
                    at: at(),
                    queue: queue.name.clone(),
                    id: block.id,
                    first: Box::new(queue.blocks[first].at.clone()),
                });
            }
            placed.insert((qi, block.id), queue.blocks.len());
            let ring = &mut queue.rings[ri];
            let first_desc = ring.descs.len();
            if descs == Descriptors::Keep {
                ring.descs.reserve(block.desc.len());
            }
            for (di, d) in block.desc.iter().enumerate() {
                let lookup = |name: &Option<String>, key: &str| -> Result<Option<u32>> {
                    let Some(n) = name else { return Ok(None) };
                    var_ids.get(n.as_str()).copied().map(Some).ok_or_else(|| {
                        KelfError::UnknownVar {
                            at: at().key("desc").index(di).key(key),
                            var: n.clone(),
                        }
                    })
                };
                let from_var_id = lookup(&d.from, "from")?;
                let to_var_id = lookup(&d.to, "to")?;
                if descs == Descriptors::Check {
                    continue;
                }
                ring.descs.push(KbinDmaDesc {
                    block_id: block.id,
                    op: d.op.clone().unwrap_or_else(|| "copy".to_owned()),
                    from_var_id,
                    to_var_id,
                    from_dtype: d.from_kbin_dtype(),
                    to_dtype: d.to_kbin_dtype(),
                    desc: Arc::clone(d),
                });
            }
            queue.blocks.push(DmaBlockRef {
                id: block.id,
                engine: p.eng_type,
                ring: ri,
                first_desc,
                ndesc: block.desc.len(),
                semaphore: block.semaphore,
                event: block.event,
                at: at(),
            });
        }
    }
    Ok(())
}
