//! Concurrent dependency insertion. The spec's scheduler inserts edges from parallel passes into
//! lock-free concurrent sets (spec 002 §2); here threads add edges to a sharded collector through
//! `&self`, and a merge (rayon, one task per shard) applies them in a canonical order, so the ordered
//! lists come out the same whatever the thread interleaving was (decision D99).

use std::sync::Mutex;

use rayon::prelude::*;

use crate::edge::Edge;
use crate::edge_kind::EdgeKind;
use crate::error::ModelError;
use crate::ids::InstId;
use crate::program::Program;

/// Number of shards (contiguous instruction ranges, each behind its own lock).
const SHARDS: usize = 64;

/// One pending edge: (inst, loop_carried, former, kind) — also its canonical sort key.
type Pending = (u32, bool, u32, EdgeKind);

/// Collects dependency edges from many threads at once; [`DepCollector::merge_into`] applies them.
#[derive(Debug)]
pub struct DepCollector {
    len: usize,
    chunk: usize,
    shards: Vec<Mutex<Vec<Pending>>>,
}

impl DepCollector {
    /// A collector for the instructions of `prog` as it is now.
    pub fn new(prog: &Program) -> DepCollector {
        let len = prog.len();
        let chunk = len.div_ceil(SHARDS).max(1);
        let shards = (0..SHARDS).map(|_| Mutex::new(Vec::new())).collect();
        DepCollector { len, chunk, shards }
    }

    /// Records "`inst` depends on `former`" (spec 002 §5 `addDependency`), from any thread.
    /// Rejects self-edges and ids outside the program at once.
    pub fn add(
        &self,
        inst: InstId,
        former: InstId,
        kind: EdgeKind,
        loop_carried: bool,
    ) -> Result<(), ModelError> {
        for id in [inst, former] {
            if id.index() >= self.len {
                return Err(ModelError::NoSuchInstruction(id));
            }
        }
        if inst == former {
            return Err(ModelError::SelfEdge(format!("#{}", inst.0)));
        }
        let shard = &self.shards[inst.index() / self.chunk];
        // A poisoned lock only means another adder panicked; the Vec is still whole.
        let mut guard = shard.lock().unwrap_or_else(|e| e.into_inner());
        guard.push((inst.0, loop_carried, former.0, kind));
        Ok(())
    }

    /// Applies every collected edge to `prog`: per instruction, the new edges are appended after
    /// the existing ones sorted by (normal before loop-carried, target id, kind), duplicates
    /// dropped by the membership set. Returns how many edges were new. Deterministic.
    pub fn merge_into(self, prog: &mut Program) -> Result<usize, ModelError> {
        if prog.len() < self.len {
            return Err(ModelError::NoSuchInstruction(InstId(self.len as u32 - 1)));
        }
        let chunk = self.chunk;
        let shards: Vec<Vec<Pending>> = self
            .shards
            .into_iter()
            .map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))
            .collect();
        let insts = &mut prog.insts[..self.len];
        let added: usize = insts
            .par_chunks_mut(chunk)
            .zip(shards.into_par_iter())
            .enumerate()
            .map(|(s, (chunk_insts, mut pending))| {
                pending.sort_unstable();
                let base = (s * chunk) as u32;
                let mut added = 0;
                for (inst, lc, former, kind) in pending {
                    let sch = &mut chunk_insts[(inst - base) as usize].schedule;
                    let list = if lc {
                        &mut sch.loop_carried
                    } else {
                        &mut sch.dependencies
                    };
                    added += usize::from(list.insert(Edge::new(InstId(former), kind)));
                }
                added
            })
            .sum();
        prog.rebuild_descendents();
        Ok(added)
    }
}
