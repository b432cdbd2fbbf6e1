//! The DMA constants from measured transfers (a capture's DMA records, a report's `dma` rows):
//! what one DMA engine costs per descriptor and per byte, the largest descriptor, how many
//! engines a core has, and the latency from a trigger to its first descriptor moving
//! (decision D440).
//!
//! - Per (subgraph, DMA engine, queue), in start order, a transfer that starts before the
//!   previous one ended ran back to back: the gap between their ends is what the engine spent
//!   on it. Grouped by size, each group's median, then `descriptor + bytes * per_byte` by
//!   weighted least squares over the groups.
//! - The largest descriptor: the largest size that carries at least 5% of the transfers of
//!   more than 4 bytes (the 4-byte ones are semaphore writes).
//! - The latency: from a DMA trigger's issue, when no transfer of its subgraph was in flight,
//!   to the next transfer's start.

use std::collections::BTreeMap;

use neff_load::model::LoadedModel;
use neff_profile::Profile;

use super::{groups, line, median, round4};
use crate::cost::DmaCost;

/// One measured transfer.
#[derive(Debug, Clone, Copy)]
struct Row<'a> {
    subgraph: &'a str,
    engine: u64,
    queue: u64,
    bytes: u64,
    start: f64,
    end: f64,
}

/// The samples of every observation.
#[derive(Debug, Default)]
pub(super) struct DmaSamples {
    /// (bytes, engine time of a back-to-back transfer ns).
    back_to_back: Vec<(u64, f64)>,
    /// Transfer sizes over 4 bytes.
    sizes: Vec<u64>,
    /// DMA engines seen in one subgraph.
    engines: Vec<u32>,
    /// Trigger to first start, ns.
    latency: Vec<f64>,
}

impl DmaSamples {
    /// Whether no transfer was measured.
    pub(super) fn is_empty(&self) -> bool {
        self.back_to_back.is_empty()
    }
}

/// The transfers of `profile`.
fn rows(profile: &Profile) -> Vec<Row<'_>> {
    (profile.dma.iter())
        .map(|d| Row {
            subgraph: &d.subgraph,
            engine: d.dma_engine,
            queue: d.dma_queue,
            bytes: d.size,
            start: d.timestamp as f64,
            end: d.timestamp.saturating_add(d.duration) as f64,
        })
        .collect()
}

/// Adds the samples of one observation.
pub(super) fn collect(model: &LoadedModel, profile: &Profile, out: &mut DmaSamples) {
    let rows = rows(profile);
    if rows.is_empty() {
        return;
    }
    let mut lanes: BTreeMap<(&str, u64, u64), Vec<Row<'_>>> = BTreeMap::new();
    for r in &rows {
        lanes
            .entry((r.subgraph, r.engine, r.queue))
            .or_default()
            .push(*r);
    }
    let mut engines: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    for ((sg, e, _), mut v) in lanes {
        engines.entry(sg).or_default().push(e);
        v.sort_by(|a, b| a.start.total_cmp(&b.start));
        for w in v.windows(2) {
            if w[1].start <= w[0].end {
                out.back_to_back.push((w[1].bytes, w[1].end - w[0].end));
            }
        }
    }
    for mut v in engines.into_values() {
        v.sort_unstable();
        v.dedup();
        out.engines.push(v.len() as u32);
    }
    out.sizes
        .extend(rows.iter().filter(|r| r.bytes > 4).map(|r| r.bytes));
    latency(model, profile, &rows, &mut out.latency);
}

/// Trigger-to-first-start samples of every subgraph whose DMA engines were idle at the trigger.
fn latency(model: &LoadedModel, profile: &Profile, rows: &[Row<'_>], out: &mut Vec<f64>) {
    for sg in &model.subgraphs {
        let Ok(programs) = crate::compile_images(model, sg, &crate::SimOptions::default()) else {
            continue;
        };
        let mut mine: Vec<(f64, f64)> = (rows.iter())
            .filter(|r| r.subgraph == sg.name && r.bytes > 4)
            .map(|r| (r.start, r.end))
            .collect();
        mine.sort_by(|a, b| a.0.total_cmp(&b.0));
        // The latest end of the transfers started before each one.
        let mut ends = Vec::with_capacity(mine.len());
        let mut hi = f64::NEG_INFINITY;
        for &(_, e) in &mine {
            ends.push(hi);
            hi = hi.max(e);
        }
        for p in &programs {
            for i in profile.instructions_of(&sg.name, p.engine) {
                let Some(op) = p.ops.get(i.pc as usize) else {
                    continue;
                };
                if !matches!(p.kind(op), crate::op::OpKind::DmaStart { .. }) {
                    continue;
                }
                let t = i.timestamp as f64;
                let k = mine.partition_point(|x| x.0 < t);
                if k < mine.len() && ends[k] < t {
                    out.push(mine[k].0 - t);
                }
            }
        }
    }
}

/// The DMA constants, when any observation had transfers.
pub(super) fn fit(s: &DmaSamples) -> Option<DmaCost> {
    let (descriptor_ns, ns_per_byte) = line(&groups(&s.back_to_back))?;
    let mut by: BTreeMap<u64, usize> = BTreeMap::new();
    for &b in &s.sizes {
        *by.entry(b).or_default() += 1;
    }
    let floor = s.sizes.len() / 20;
    let max_descriptor_bytes = (by.iter().rev())
        .find(|&(_, &n)| n >= floor.max(1))
        .map_or(4096, |(&b, _)| b);
    Some(DmaCost {
        latency_ns: round4(median(s.latency.clone())),
        descriptor_ns: round4(descriptor_ns),
        ns_per_byte: round4(ns_per_byte),
        engines: s.engines.iter().copied().max().unwrap_or(16),
        max_descriptor_bytes,
    })
}

/// The counts behind the DMA constants, for the table's comment.
pub(super) fn notes(s: &DmaSamples) -> String {
    format!(
        "{} back-to-back transfers, {} trigger latencies, {} transfers sized",
        s.back_to_back.len(),
        s.latency.len(),
        s.sizes.len()
    )
}
