//! DMA queues (spec 003 §4-§5; def.json `dma_queue`): a tail-pointer WRITE hands a ring its
//! next descriptors; after the trigger's latency each transfer is moved by as many of the core's
//! DMA engines as raise its semaphore (reference-ntff §3: every queue's records come from the 16
//! engines; a DIRECT2D's `sem_increment` is 16), each engine taking the parts of every queue in
//! turn (the engines, not the rings, are the shared resource: decision D440); a finished
//! transfer raises its semaphore.
//!
//! Which descriptors: a DIRECT2D trigger carries the one descriptor lowering generated for it
//! (its semaphore and increment, reference §4.5); a static trigger advances the ring through
//! its blocks in ring order — the hardware's ring semantics: the WRITE moves the tail, the ring
//! does not know block ids (decision D192). A block raises its `semaphore`, else the queue's
//! semaphore for that ring (spec 003 §7.3: q_gradient_in raises 10), by `num_queues`.

use neff_lower::{GeneratedDescriptor, LowerResources};

use crate::cost::{CostModel, Runs};
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
    runs: Option<u64>,
    raises: Option<(u8, i64)>,
}

/// A ring: its static blocks, how far the tail has advanced, when it is free.
#[derive(Debug, Clone, Default)]
struct Ring {
    blocks: Vec<RingBlock>,
    /// Index of the block the next descriptor belongs to, and descriptors of it already taken.
    cursor: (usize, u32),
    /// The ring's own semaphore (the queue's set, by ring position).
    semaphore: Option<u8>,
}

/// Every queue of a subgraph.
#[derive(Debug, Clone)]
pub(crate) struct Queues {
    rings: Vec<Vec<Ring>>,
    /// Per DMA engine, when it has moved every part handed to it.
    engines_free: Vec<Ps>,
    /// When the core's shared DMA path has started every descriptor handed to it (D621).
    fabric_free: Ps,
}

fn sem_u8(s: u32) -> Option<u8> {
    u8::try_from(s).ok()
}

impl Queues {
    /// The rings of every queue, with their static blocks in ring order.
    pub(crate) fn new(resources: &LowerResources, cost: &CostModel) -> Self {
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
                                runs: b.runs,
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
                            semaphore,
                        }
                    })
                    .collect()
            })
            .collect();
        let engines = cost.table.dma.engines.max(1) as usize;
        Self {
            rings,
            engines_free: vec![0; engines],
            fabric_free: 0,
        }
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
        let engines = &mut self.engines_free;
        let fabric = &mut self.fabric_free;
        // Each engine's part raises the semaphore by one: the increment is the engines used.
        let shares_of =
            |raises: Option<(u8, i64)>| raises.map_or(1, |(_, n)| n.clamp(1, 64) as u32);
        let mut push = |bytes: u64,
                        runs: Option<Runs>,
                        descriptors: Option<u64>,
                        raises: Option<(u8, i64)>,
                        shares: u32| {
            let t = cost.transfer(bytes, runs, shares, descriptors);
            let (start, mut end) = spread(engines, now + t.latency, t.shares, t.per_engine);
            // The shared path starts the transfer's descriptors in turn, after those handed to
            // it before: the last part cannot end before its descriptors all started (D621).
            if t.fabric > 0 {
                let through = start.max(*fabric) + t.fabric;
                *fabric = through;
                end = end.max(through);
            }
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
            push(
                d.dst.bytes(),
                Some(Runs::of_direct2d(d)),
                None,
                raises,
                shares_of(raises),
            );
            return;
        }
        if r.blocks.is_empty() {
            // A dynamic queue without a generated descriptor: one transfer of unknown size
            // raising the ring's semaphore by one per descriptor.
            let raises = r.semaphore.map(|s| (s, i64::from(count.max(1))));
            push(0, None, None, raises, shares_of(raises));
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
            // The block's own descriptors, however few bytes each (D852), and the pieces
            // their patterns cut the bytes into (D836).
            push(
                bytes,
                b.runs.map(|n| Runs::of_block(bytes, n, take, b.ndesc)),
                Some(u64::from(take)),
                if done { b.raises } else { None },
                shares_of(b.raises),
            );
        }
    }
}

/// Hands one part of a transfer to each of the `shares` engines free first, none before
/// `ready`; each moves its part in `per_engine`. Returns when the first part starts and the last
/// ends.
fn spread(engines: &mut [Ps], ready: Ps, shares: u32, per_engine: Ps) -> (Ps, Ps) {
    let (mut first, mut last) = (Ps::MAX, ready);
    for _ in 0..shares.min(engines.len() as u32) {
        // The engine free first (ties: the lowest index): at most 16, a scan.
        let Some((i, &free)) = engines.iter().enumerate().min_by_key(|&(i, &f)| (f, i)) else {
            break;
        };
        let s = ready.max(free);
        engines[i] = s + per_engine;
        first = first.min(s);
        last = last.max(s + per_engine);
    }
    (first.min(last), last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_go_to_the_engines_free_first() {
        let mut e = vec![0, 50, 10, 0];
        // Two parts: engines 0 and 3 (free at 0), from 100.
        assert_eq!(spread(&mut e, 100, 2, 30), (100, 130));
        assert_eq!(e, vec![130, 50, 10, 130]);
        // Four parts: 2 and 1 start at 100; then 0 and 1 (free at 130, lowest index first) wait.
        assert_eq!(spread(&mut e, 100, 4, 30), (100, 160));
        assert_eq!(e, vec![160, 160, 130, 130]);
    }
}
