//! def.json `dma_queue.<name>` entries (reference §3.3): the DMA queues the engines trigger,
//! their owner engine and semaphore sets (spec 004 §2 step 2).

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::Result;
use crate::json_reader::{Obj, as_u32};

/// trn2 `dynamic_dma` of a dynamic queue (reference §3.2).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DynamicDma {
    /// `SB_scratch_partition_offset`.
    #[serde(
        rename = "SB_scratch_partition_offset",
        skip_serializing_if = "Option::is_none"
    )]
    pub sb_scratch_partition_offset: Option<u64>,
    /// `SB_scratch_partition_size`.
    #[serde(
        rename = "SB_scratch_partition_size",
        skip_serializing_if = "Option::is_none"
    )]
    pub sb_scratch_partition_size: Option<u64>,
    /// Keys neffkit does not interpret, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One DMA queue declared by def.json.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DmaQueue {
    /// `type` (required): `in`, `out`, `data`, `embedding_update`, `dynamic`, ...
    #[serde(rename = "type")]
    pub ty: String,
    /// `num_queues` (<= 16): hardware queues the set spreads over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_queues: Option<u64>,
    /// `owner`: the engine that triggers the queue (`pool`, `sp`, `act`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// `pinned` (INF1); kept as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pinned: Option<Value>,
    /// `queue_instances`: the ring instances of the queue set (decision D36); kept as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_instances: Option<Value>,
    /// `semaphore_set`: one semaphore per hardware queue (<= 32, spec 004 §2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub semaphore_set: Option<Vec<u32>>,
    /// `semaphore`: the single completion semaphore (the spec's sample, spec 000 §9).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub semaphore: Option<u32>,
    /// `fabric_path` (`main` | `alt`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fabric_path: Option<String>,
    /// trn2 `dynamic_dma`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dynamic_dma: Option<DynamicDma>,
    /// Keys neffkit does not interpret, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

const KNOWN: [&str; 9] = [
    "type",
    "num_queues",
    "owner",
    "pinned",
    "queue_instances",
    "semaphore_set",
    "semaphore",
    "fabric_path",
    "dynamic_dma",
];

impl DmaQueue {
    /// Reads one queue object.
    pub(crate) fn read(o: Obj<'_, '_>) -> Result<Self> {
        Ok(Self {
            ty: o.req_str("type")?,
            num_queues: o.opt_u64("num_queues")?,
            owner: o.opt_str("owner")?,
            pinned: o.raw("pinned").cloned(),
            queue_instances: o.raw("queue_instances").cloned(),
            semaphore_set: o.opt_list("semaphore_set", as_u32)?,
            semaphore: o.opt_u32("semaphore")?,
            fabric_path: o.opt_str("fabric_path")?,
            dynamic_dma: o.opt_obj("dynamic_dma", |d| {
                Ok(DynamicDma {
                    sb_scratch_partition_offset: d.opt_u64("SB_scratch_partition_offset")?,
                    sb_scratch_partition_size: d.opt_u64("SB_scratch_partition_size")?,
                    extra: d.extra(&["SB_scratch_partition_offset", "SB_scratch_partition_size"]),
                })
            })?,
            extra: o.extra(&KNOWN),
        })
    }

    /// The queue's semaphores: `semaphore_set`, else the single `semaphore`, else none.
    pub fn semaphores(&self) -> Vec<u32> {
        match (&self.semaphore_set, self.semaphore) {
            (Some(set), _) => set.clone(),
            (None, Some(s)) => vec![s],
            (None, None) => Vec::new(),
        }
    }

    /// The ring-instance names of the queue set (decision D36): the strings of
    /// `queue_instances` when it is a list of names, else one ring named after the queue.
    pub fn instance_names(&self, queue: &str) -> Vec<String> {
        let names: Vec<String> = match &self.queue_instances {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        };
        if names.is_empty() {
            vec![queue.to_owned()]
        } else {
            names
        }
    }
}

/// The queue (name and entry) and ring a trigger or engine JSON block names (decision D36): a
/// queue's own name is its first ring; otherwise the first ring instance of that name, queues in
/// def.json (sorted) order. `kbin_dma`'s ring index is this rule hashed for many lookups.
pub fn ring_named<'q>(
    queues: &'q std::collections::BTreeMap<String, DmaQueue>,
    name: &str,
) -> Option<(&'q str, &'q DmaQueue, usize)> {
    if let Some((q_name, q)) = queues.get_key_value(name) {
        return Some((q_name, q, 0));
    }
    queues.iter().find_map(|(q_name, q)| {
        let ring = q.instance_names(q_name).iter().position(|n| n == name)?;
        Some((q_name.as_str(), q, ring))
    })
}

#[cfg(test)]
mod ring_tests {
    use super::*;

    fn queue(instances: Option<&[&str]>) -> DmaQueue {
        DmaQueue {
            ty: "in".into(),
            num_queues: None,
            owner: None,
            pinned: None,
            queue_instances: instances.map(|n| serde_json::json!(n)),
            semaphore_set: Some(vec![7, 8]),
            semaphore: None,
            fabric_path: None,
            dynamic_dma: None,
            extra: Map::new(),
        }
    }

    /// D36: a queue's name is its ring 0, an instance name its ring, a queue name first.
    #[test]
    fn a_name_resolves_to_its_queue_and_ring() {
        let mut queues = std::collections::BTreeMap::new();
        queues.insert("a".to_owned(), queue(Some(&["b", "a1"])));
        queues.insert("b".to_owned(), queue(None));
        let at = |n: &str| ring_named(&queues, n).map(|(q, _, r)| (q.to_owned(), r));
        assert_eq!(at("a"), Some(("a".into(), 0)));
        assert_eq!(at("a1"), Some(("a".into(), 1)));
        assert_eq!(
            at("b"),
            Some(("b".into(), 0)),
            "the queue name wins over a's ring b"
        );
        assert_eq!(at("c"), None);
    }
}
