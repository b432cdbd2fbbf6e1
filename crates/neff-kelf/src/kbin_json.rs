//! The JSON form of a kbin: one subgraph of `neff kbin --json` and of the Python package's
//! `Neff.kbin()`, defined once here.

use serde_json::{Value, json};

use crate::kbin::Kbin;

impl Kbin<'_> {
    /// `{"name", "target", "arch", "engines": [{slot, engine, eng_type, ninstr, size}] (in
    /// `EngineType` order, D340; `slot` is the kbin's slot index),
    /// "dma_queues": [{name, owner, type, semaphores, rings: [{name, descriptors, blocks}]}],
    /// "mem_refs": [{var_id, name, type, size}], "warnings": [..]}`.
    pub fn to_json(&self) -> Value {
        let engines: Vec<Value> = self
            .engines_by_type()
            .into_iter()
            .map(|s| {
                json!({"slot": s.slot, "engine": s.name, "eng_type": s.eng_type as u8,
                       "ninstr": s.ninstr, "size": s.size})
            })
            .collect();
        let queues: Vec<Value> = self
            .dma_queues
            .iter()
            .map(|q| {
                let rings: Vec<Value> = q
                    .rings
                    .iter()
                    .enumerate()
                    .map(|(i, r)| {
                        let blocks = q.blocks.iter().filter(|b| b.ring == i).count();
                        json!({"name": r.name, "descriptors": r.descs.len(), "blocks": blocks})
                    })
                    .collect();
                json!({"name": q.name, "owner": q.owner.map(|o| o.key()), "type": q.ty,
                       "semaphores": q.semaphores, "rings": rings})
            })
            .collect();
        let mem_refs: Vec<Value> = self
            .mem_refs
            .iter()
            .map(|m| json!({"var_id": m.var_id, "name": m.name, "type": m.ty.name(), "size": m.size}))
            .collect();
        json!({"name": self.name, "target": self.target.name(), "arch": self.target.arch(),
               "engines": engines, "dma_queues": queues, "mem_refs": mem_refs,
               "warnings": self.warnings})
    }
}
