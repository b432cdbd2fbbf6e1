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
//! - The shared path's runs (D810): per (subgraph, queue, record size) the bursts of records
//!   starting one after another; the median interval between starts, less what the contiguous
//!   fit (D621) gives a record of that size, is what the record's extra runs cost. The runs come
//!   from the DIRECT2D shapes the NEFF puts on that queue (the capture names each record's
//!   queue); `rest = extra * run + small * small_run` by least squares over the groups.

use std::collections::BTreeMap;

use neff_load::model::LoadedModel;
use neff_profile::Profile;

use super::{groups, line, median, round4};

/// Rounded to 6 decimals (a per-byte figure of a few thousandths keeps 3 significant digits).
fn round6(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}
use crate::cost::{DmaCost, Runs};

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
    /// Per long burst: (descriptor bytes, start-to-start interval ns) (D621).
    fabric: Vec<(u64, f64)>,
    /// The record groups of DIRECT2Ds with more than one run per record (D810).
    runs: Vec<RunSample>,
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
    fabric(&rows, &mut out.fabric);
    run_samples(model, profile, &rows, &mut out.runs);
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

/// Records of at most this many bytes are semaphore writes and descriptor-ring words, not data.
const CONTROL_RECORD_BYTES: u64 = 64;

/// A burst says how fast the core starts descriptors when it holds at least this many data
/// records (the shortest long bursts of the attention captures hold 64; moe's 16- and 32-record
/// bursts are dominated by their first descriptors' start).
const MIN_BURST_RECORDS: usize = 64;

/// The shared path's samples (D621): per (subgraph, queue) the data records in start order cut
/// into bursts (a record starting after every earlier one ended begins the next); each long
/// burst gives its median record size and the mean interval between record starts.
fn fabric(rows: &[Row<'_>], out: &mut Vec<(u64, f64)>) {
    let mut queues: BTreeMap<(&str, u64), Vec<Row<'_>>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.bytes > CONTROL_RECORD_BYTES) {
        queues.entry((r.subgraph, r.queue)).or_default().push(*r);
    }
    for mut v in queues.into_values() {
        v.sort_by(|a, b| a.start.total_cmp(&b.start));
        let mut first = 0;
        let mut end = f64::NEG_INFINITY;
        for i in 0..=v.len() {
            if i == v.len() || v[i].start > end {
                let burst = &v[first..i];
                if burst.len() >= MIN_BURST_RECORDS {
                    let mut sizes: Vec<u64> = burst.iter().map(|r| r.bytes).collect();
                    sizes.sort_unstable();
                    let span = burst[burst.len() - 1].start - burst[0].start;
                    out.push((sizes[sizes.len() / 2], span / (burst.len() - 1) as f64));
                }
                first = i;
            }
            if let Some(r) = v.get(i) {
                end = end.max(r.end);
            }
        }
    }
}

/// The largest run the captures show paying the small-run cost (D810: runs of 2 and 8 bytes
/// do, of 256 bytes and more do not; none of 9-255 bytes is in the shared captures).
const SMALL_RUN_BYTES: u64 = 8;

/// Records of one transfer start at most this far apart: the slowest stagger measured is 63 ns
/// (16-byte records of 2-byte runs) and a queue's DIRECT2Ds issue >= 580 ns apart (D622).
const BURST_GAP_NS: f64 = 150.0;

/// A short burst (one DIRECT2D's records) says little with fewer records than this.
const MIN_RUN_BURST_RECORDS: usize = 8;

/// One (queue, record size) group whose records hold more than one run, or small ones (D810).
#[derive(Debug, Clone, Copy)]
struct RunSample {
    /// Bytes of each record.
    bytes: f64,
    /// Runs of more than [`SMALL_RUN_BYTES`] per record beyond the first.
    extra_runs: f64,
    /// Runs of at most [`SMALL_RUN_BYTES`] per record.
    small_runs: f64,
    /// The median interval between record starts inside a burst, ns.
    interval: f64,
}

/// What each DIRECT2D of a queue moves: (bytes, its runs), per (subgraph, queue name).
type Shapes<'a> = BTreeMap<(&'a str, &'a str), Vec<(u64, Runs)>>;

/// The DIRECT2D shapes of every (subgraph, queue name) of `model`.
fn shapes(model: &LoadedModel) -> Shapes<'_> {
    let mut out: Shapes<'_> = BTreeMap::new();
    for sg in &model.subgraphs {
        for d in sg.engines.iter().flat_map(|e| &e.descriptors) {
            if let Some(q) = sg.resources.queues.get(d.queue as usize) {
                let v = out.entry((sg.name.as_str(), q.name.as_str())).or_default();
                let shape = (d.dst.bytes(), Runs::of_direct2d(d));
                if !v.contains(&shape) {
                    v.push(shape);
                }
            }
        }
    }
    out
}

/// (extra runs, small runs) per record of `bytes`: the reading every DIRECT2D shape of the
/// queue that cuts into whole records of that size agrees on, `None` when they disagree or
/// none does.
fn runs_per_record(shapes: &[(u64, Runs)], bytes: u64) -> Option<(f64, f64)> {
    let mut found = None;
    for &(total, runs) in shapes {
        if bytes == 0 || total % bytes != 0 || runs.count % (total / bytes) != 0 {
            continue;
        }
        let per = (runs.count / (total / bytes)) as f64;
        let r = if runs.bytes <= SMALL_RUN_BYTES {
            (0.0, per)
        } else {
            (per - 1.0, 0.0)
        };
        if found.is_some_and(|f| f != r) {
            return None;
        }
        found = Some(r);
    }
    found
}

/// The run samples (D810): per (subgraph, queue, record size), the bursts of same-size records
/// each starting within [`BURST_GAP_NS`] of the one before; groups whose records hold more than
/// one run, or small runs, by the queue's DIRECT2D shapes.
fn run_samples(model: &LoadedModel, profile: &Profile, rows: &[Row<'_>], out: &mut Vec<RunSample>) {
    let shapes = shapes(model);
    let mut queues: BTreeMap<(&str, &str), Vec<Row<'_>>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.bytes > 4) {
        if let Some(name) = profile.dma_queue_name(r.subgraph, r.engine, r.queue) {
            queues.entry((r.subgraph, name)).or_default().push(*r);
        }
    }
    for (key, mut v) in queues {
        let Some(shapes) = shapes.get(&key) else {
            continue;
        };
        v.sort_by(|a, b| a.start.total_cmp(&b.start));
        let mut per_size: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
        for burst in v.chunk_by(|a, b| b.bytes == a.bytes && b.start - a.start <= BURST_GAP_NS) {
            if burst.len() >= MIN_RUN_BURST_RECORDS {
                let span = burst[burst.len() - 1].start - burst[0].start;
                (per_size.entry(burst[0].bytes).or_default()).push(span / (burst.len() - 1) as f64);
            }
        }
        for (bytes, intervals) in per_size {
            match runs_per_record(shapes, bytes) {
                Some((extra_runs, small_runs)) if extra_runs + small_runs > 0.0 => {
                    out.push(RunSample {
                        bytes: bytes as f64,
                        extra_runs,
                        small_runs,
                        interval: median(intervals),
                    });
                }
                _ => {}
            }
        }
    }
}

/// The run costs (per extra run, per small run) by least squares without intercept on what the
/// contiguous path (`descriptor + bytes * per_byte`) leaves of each group's interval; a kind of
/// run no group shows (a leave-one-out fold without it) costs 0, as before D810.
fn run_costs(samples: &[RunSample], descriptor: f64, per_byte: f64) -> (f64, f64) {
    let (mut xx, mut xs, mut ss, mut xy, mut sy) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for p in samples {
        let rest = p.interval - descriptor - per_byte * p.bytes;
        xx += p.extra_runs * p.extra_runs;
        xs += p.extra_runs * p.small_runs;
        ss += p.small_runs * p.small_runs;
        xy += p.extra_runs * rest;
        sy += p.small_runs * rest;
    }
    let det = xx * ss - xs * xs;
    let (run, small) = if det.abs() > 1e-9 {
        ((xy * ss - sy * xs) / det, (sy * xx - xy * xs) / det)
    } else if xx > 0.0 {
        (xy / xx, 0.0)
    } else if ss > 0.0 {
        (0.0, sy / ss)
    } else {
        (0.0, 0.0)
    };
    (run.max(0.0), small.max(0.0))
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
    // One descriptor size only: the interval is all per byte.
    let (fabric_descriptor_ns, fabric_ns_per_byte) =
        line(&groups(&s.fabric)).unwrap_or_else(|| {
            let per: Vec<f64> = (s.fabric.iter())
                .map(|&(b, t)| t / b.max(1) as f64)
                .collect();
            (0.0, if per.is_empty() { 0.0 } else { median(per) })
        });
    let (fabric_run_ns, fabric_small_run_ns) =
        run_costs(&s.runs, fabric_descriptor_ns, fabric_ns_per_byte);
    Some(DmaCost {
        latency_ns: round4(median(s.latency.clone())),
        descriptor_ns: round4(descriptor_ns),
        ns_per_byte: round4(ns_per_byte),
        engines: s.engines.iter().copied().max().unwrap_or(16),
        max_descriptor_bytes,
        fabric_descriptor_ns: round4(fabric_descriptor_ns),
        fabric_run_ns: round4(fabric_run_ns),
        fabric_small_run_ns: round4(fabric_small_run_ns),
        small_run_bytes: SMALL_RUN_BYTES,
        fabric_ns_per_byte: round6(fabric_ns_per_byte),
        dge_interval_ns: 0.0,
        dge_job_ns: [0.0; neff_isa::EngineType::COUNT],
    })
}

/// The counts behind the DMA constants, for the table's comment.
pub(super) fn notes(s: &DmaSamples) -> String {
    format!(
        "{} back-to-back transfers, {} trigger latencies, {} transfers sized, {} long bursts, \
         {} record groups of several or small runs",
        s.back_to_back.len(),
        s.latency.len(),
        s.sizes.len(),
        s.fabric.len(),
        s.runs.len()
    )
}
