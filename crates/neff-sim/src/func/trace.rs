//! `neff run --trace NAME`: every write to a chosen tensor's DRAM bytes, in the run's issue
//! order (the step: slots issued so far, every core together), with the instruction that wrote
//! and a summary of the values written (decision D682); the simulated time of that instruction
//! in ns is filled in from the timing model's timeline ([`Trace::time`], decision D751).

use std::collections::BTreeSet;

use neff_isa::Dtype;
use serde::Serialize;

use super::convert;
use super::error::SlotAt;
use super::hbm::Hbm;
use super::memory::{Mem, Touch};

/// Elements listed first in a [`TraceWrite`].
pub const TRACE_FIRST: usize = 4;

/// Writes kept per run; further ones are counted ([`Trace::more`]).
pub const MAX_TRACE_WRITES: usize = 10_000;

/// One write to a traced tensor.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceWrite {
    /// Slots issued before this one, every core together (the run's order).
    pub step: u64,
    /// The instruction (a DMA's: the slot that issued it).
    pub at: SlotAt,
    /// When that instruction issued in the timing model's run of the NEFF, ns (`None` until
    /// [`Trace::time`] found it).
    pub ns: Option<f64>,
    /// When it completed there, ns.
    pub end_ns: Option<f64>,
    /// The tensor (its def.json var).
    pub tensor: String,
    /// The first and one past the last byte written.
    pub bytes: [u64; 2],
    /// The element type written (`float32`, ...).
    pub dtype: String,
    /// Elements written.
    pub elements: u64,
    /// The smallest value written (NaN when there are none or a NaN was written).
    pub min: f64,
    /// The largest value written.
    pub max: f64,
    /// The mean of the values written.
    pub mean: f64,
    /// The first [`TRACE_FIRST`] values, in byte order.
    pub first: Vec<f64>,
}

/// The writes to the traced tensors.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Trace {
    /// The writes, in the run's order.
    pub writes: Vec<TraceWrite>,
    /// Further writes not kept (past [`MAX_TRACE_WRITES`]).
    pub more: u64,
}

/// Collects the writes to the tensors named.
#[derive(Debug, Default)]
pub(crate) struct Tracer {
    names: BTreeSet<String>,
    trace: Trace,
}

/// Running min / max / sum of values.
#[derive(Default)]
struct Summary {
    n: u64,
    min: f64,
    max: f64,
    sum: f64,
    nan: bool,
    first: Vec<f64>,
}

impl Summary {
    fn add(&mut self, v: f64) {
        if v.is_nan() {
            self.nan = true;
        } else if self.n == 0 {
            (self.min, self.max) = (v, v);
        } else {
            self.min = self.min.min(v);
            self.max = self.max.max(v);
        }
        self.n += 1;
        self.sum += v;
        if self.first.len() < TRACE_FIRST {
            self.first.push(v);
        }
    }
}

impl Tracer {
    /// A tracer of the DRAM vars `names`.
    pub(crate) fn new(names: impl IntoIterator<Item = String>) -> Self {
        Self {
            names: names.into_iter().collect(),
            trace: Trace::default(),
        }
    }

    /// Records the writes among `touches` (made by the instruction `at` at `step`) to a traced
    /// tensor, reading the values now in `hbm`.
    pub(crate) fn on_touches(
        &mut self,
        hbm: &Hbm,
        at: impl Fn() -> SlotAt,
        step: u64,
        touches: &[Touch],
    ) {
        let mut bufs: Vec<usize> = touches
            .iter()
            .filter_map(|t| match t.mem {
                Mem::Dram(i) if t.write && self.names.contains(&hbm.buffers[i].name) => Some(i),
                _ => None,
            })
            .collect();
        bufs.dedup();
        for i in bufs {
            if self.trace.writes.len() >= MAX_TRACE_WRITES {
                self.trace.more += 1;
                continue;
            }
            let mut runs: Vec<&Touch> = touches
                .iter()
                .filter(|t| t.write && t.mem == Mem::Dram(i))
                .collect();
            runs.sort_by_key(|t| t.start);
            let dtype = runs[0].dtype;
            let size = convert::size(dtype).unwrap_or(1);
            let bytes = &hbm.buffers[i].bytes;
            let mut s = Summary::default();
            for t in &runs {
                for c in bytes[t.start..t.start + t.len].chunks_exact(size) {
                    s.add(convert::read(dtype, c));
                }
            }
            let lo = runs[0].start as u64;
            let hi = runs
                .iter()
                .map(|t| (t.start + t.len) as u64)
                .max()
                .unwrap_or(lo);
            self.trace.writes.push(summary(
                at(),
                step,
                &hbm.buffers[i].name,
                [lo, hi],
                dtype,
                s,
            ));
        }
    }

    /// The writes recorded.
    pub(crate) fn finish(self) -> Trace {
        self.trace
    }
}

fn summary(
    at: SlotAt,
    step: u64,
    tensor: &str,
    bytes: [u64; 2],
    dtype: Dtype,
    s: Summary,
) -> TraceWrite {
    let nan = s.nan || s.n == 0;
    TraceWrite {
        step,
        at,
        ns: None,
        end_ns: None,
        tensor: tensor.to_string(),
        bytes,
        dtype: convert::manifest_name(dtype).to_string(),
        elements: s.n,
        min: if nan { f64::NAN } else { s.min },
        max: if nan { f64::NAN } else { s.max },
        mean: if s.n == 0 {
            f64::NAN
        } else {
            s.sum / s.n as f64
        },
        first: s.first,
    }
}

impl std::fmt::Display for TraceWrite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let first: Vec<String> = self.first.iter().map(|v| format!("{v}")).collect();
        let ns = self
            .ns
            .map_or_else(|| "-".to_string(), |t| format!("{t:.0}"));
        write!(
            f,
            "{ns:>10} ns  step {:>7}  {:<40} {} bytes {}..{}: {} {} min {} max {} mean {:.6} first [{}]",
            self.step,
            self.at.to_string(),
            self.tensor,
            self.bytes[0],
            self.bytes[1],
            self.elements,
            self.dtype,
            self.min,
            self.max,
            self.mean,
            first.join(", ")
        )
    }
}
