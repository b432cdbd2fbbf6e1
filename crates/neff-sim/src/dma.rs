//! DMA queues (spec 003 §4-§5; def.json `dma_queue`): a tail-pointer WRITE hands a ring its
//! next descriptors; the ring moves them one transfer after another; a finished transfer raises
//! its semaphore.
//!
//! Which descriptors: a DIRECT2D trigger carries the one descriptor lowering generated for it
//! (its semaphore and increment, reference §4.5); a static trigger advances the ring through
//! its blocks in ring order — the hardware's ring semantics: the WRITE moves the tail, the ring
//! does not know block ids (decision D192). A block raises its `semaphore`, else the queue's
//! semaphore for that ring (spec 003 §7.3: q_gradient_in raises 10), by `num_queues`.

use neff_load::lower::{GeneratedDescriptor, LowerResources};

use crate::cost::CostModel;
use crate::time::Ps;

/// One transfer a ring moved (or is moving).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Transfer {
    /// The queue (index in the subgraph's resources).
    pub queue: u16,
    /// The ring.
    pub ring: u16,
    /// Bytes moved.
    pub bytes: u64,
    /// The semaphore raised at the end, and by how much.
    pub raises: Option<(u8, i64)>,
    /// When the trigger issued.
    pub triggered: Ps,
    /// When the ring started it.
    pub start: Ps,
    /// When it finished.
    pub end: Ps,
    /// The issue record of the trigger (see `crate::machine`), [`crate::machine::NO_RECORD`] when not recorded.
    pub trigger: u32,
}

/// One static block on a ring.
#[derive(Debug, Clone, Copy)]
struct RingBlock {
    ndesc: u32,
    bytes: u64,
    raises: Option<(u8, i64)>,
}

/// A ring: its static blocks, how far the tail has advanced, when it is free.
#[derive(Debug, Clone, Default)]
struct Ring {
    blocks: Vec<RingBlock>,
    /// Index of the block the next descriptor belongs to, and descriptors of it already taken.
    cursor: (usize, u32),
    free_at: Ps,
    /// The ring's own semaphore (the queue's set, by ring position).
    semaphore: Option<u8>,
}

/// Every queue of a subgraph.
#[derive(Debug, Clone)]
pub(crate) struct Queues {
    rings: Vec<Vec<Ring>>,
}

fn sem_u8(s: u32) -> Option<u8> {
    u8::try_from(s).ok()
}

impl Queues {
    /// The rings of every queue, with their static blocks in ring order.
    pub(crate) fn new(resources: &LowerResources) -> Self {
        let rings = resources
            .queues
            .iter()
            .map(|q| {
                (0..q.rings.max(1))
                    .map(|r| {
                        let semaphore = q.semaphores.get(r).copied().and_then(sem_u8);
                        let blocks = q
                            .blocks
                            .iter()
                            .filter(|b| b.ring == r)
                            .map(|b| RingBlock {
                                ndesc: b.ndesc.max(1),
                                bytes: b.bytes,
                                raises: b
                                    .semaphore
                                    .and_then(sem_u8)
                                    .or(semaphore)
                                    .map(|s| (s, i64::from(b.sem_increment.max(1)))),
                            })
                            .collect();
                        Ring {
                            blocks,
                            cursor: (0, 0),
                            free_at: 0,
                            semaphore,
                        }
                    })
                    .collect()
            })
            .collect();
        Self { rings }
    }

    /// The tail of `(queue, ring)` advances by `count` descriptors at `now` (or by the one
    /// generated descriptor `desc`): the transfers this starts, appended to `out`.
    #[allow(clippy::too_many_arguments)] // one trigger's facts
    pub(crate) fn trigger(
        &mut self,
        now: Ps,
        queue: u16,
        ring: u16,
        count: u32,
        desc: Option<&GeneratedDescriptor>,
        cost: &CostModel,
        trigger: u32,
        out: &mut Vec<Transfer>,
    ) {
        let Some(r) = self
            .rings
            .get_mut(usize::from(queue))
            .and_then(|q| q.get_mut(usize::from(ring)))
        else {
            return;
        };
        let mut push = |r: &mut Ring, bytes: u64, raises: Option<(u8, i64)>| {
            let start = now.max(r.free_at);
            let end = start + cost.transfer(bytes);
            r.free_at = end;
            out.push(Transfer {
                queue,
                ring,
                bytes,
                raises,
                triggered: now,
                start,
                end,
                trigger,
            });
        };
        if let Some(d) = desc {
            let raises = Some((d.semaphore, i64::from(d.sem_increment)));
            push(r, d.dst.bytes(), raises);
            return;
        }
        if r.blocks.is_empty() {
            // A dynamic queue without a generated descriptor: one transfer of unknown size
            // raising the ring's semaphore by one per descriptor.
            let raises = r.semaphore.map(|s| (s, i64::from(count.max(1))));
            push(r, 0, raises);
            return;
        }
        let mut left = count;
        while left > 0 && r.cursor.0 < r.blocks.len() {
            let b = r.blocks[r.cursor.0];
            let take = left.min(b.ndesc - r.cursor.1);
            left -= take;
            r.cursor.1 += take;
            let bytes = b.bytes * u64::from(take) / u64::from(b.ndesc);
            let done = r.cursor.1 == b.ndesc;
            if done {
                r.cursor = (r.cursor.0 + 1, 0);
            }
            push(r, bytes, if done { b.raises } else { None });
        }
    }
}
