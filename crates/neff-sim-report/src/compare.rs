//! A simulation against a hardware profile of the same NEFF (read by neff-profile): measured vs
//! predicted span, per-engine busy time, per-class mean duration, and the instructions whose
//! predicted end (from the subgraph's MAIN start) is furthest from the measured one.
//!
//! Instructions are paired by (subgraph, engine, NEFF slot, occurrence): the n-th execution of
//! slot s on an engine in the profile with the n-th in the simulation. The class of a profiled
//! instruction is the class the simulator gave that slot.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

use neff_isa::EngineType;
use neff_profile::Profile;
use serde::Serialize;

use neff_sim::cost::CostClass;
use neff_sim::time::{Busy, ns, ps_from_ns};
use neff_sim::{SimResult, SubgraphResult};

/// How many of the largest per-instruction errors a comparison keeps.
pub const LARGEST: usize = 10;

/// The comparison of one run with one profile.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// Per subgraph present in both.
    pub subgraphs: Vec<SubgraphComparison>,
}

/// One subgraph.
#[derive(Debug, Clone, Serialize)]
pub struct SubgraphComparison {
    /// The subgraph.
    pub name: String,
    /// The profile's span, ns.
    pub measured_span_ns: u64,
    /// The simulator's, ns.
    pub predicted_span_ns: u64,
    /// `(predicted - measured) / measured`, percent.
    pub span_error_pct: f64,
    /// Per engine.
    pub engines: Vec<EngineComparison>,
    /// Per (engine, class).
    pub classes: Vec<ClassComparison>,
    /// Per DMA queue the profile measured (its transfers; the simulator's queue of that name).
    pub queues: Vec<QueueComparison>,
    /// NEFF instructions paired.
    pub paired: u64,
    /// The largest per-instruction errors.
    pub largest: Vec<InstructionError>,
}

/// One engine's busy time.
#[derive(Debug, Clone, Serialize)]
pub struct EngineComparison {
    /// The engine.
    #[serde(serialize_with = "neff_sim::engine_name::serialize")]
    pub engine: EngineType,
    /// Time at least one NEFF instruction was in flight in the profile, ns.
    pub measured_busy_ns: u64,
    /// In the simulation, ns.
    pub predicted_busy_ns: u64,
}

/// One DMA queue: what the hardware moved on it and what the simulator did.
#[derive(Debug, Clone, Serialize)]
pub struct QueueComparison {
    /// The queue's name (a capture's or report's queue table: `qPoolDynamic`), else `q<N>`.
    pub name: String,
    /// Transfers (descriptors) measured.
    pub measured_transfers: u64,
    /// Bytes measured.
    pub measured_bytes: u64,
    /// Time at least one of its transfers was moving, ns.
    pub measured_busy_ns: u64,
    /// The simulator's queue of that name: bytes (0 when it has none).
    pub predicted_bytes: u64,
    /// Its busy time, ns.
    pub predicted_busy_ns: u64,
}

/// One class's mean duration.
#[derive(Debug, Clone, Serialize)]
pub struct ClassComparison {
    /// The engine.
    #[serde(serialize_with = "neff_sim::engine_name::serialize")]
    pub engine: EngineType,
    /// The class.
    pub class: CostClass,
    /// Paired instructions.
    pub count: u64,
    /// Mean measured duration, ns.
    pub measured_mean_ns: f64,
    /// Mean predicted duration, ns.
    pub predicted_mean_ns: f64,
    /// `(predicted - measured) / measured`, percent.
    pub error_pct: f64,
}

/// One instruction's error.
#[derive(Debug, Clone, Serialize)]
pub struct InstructionError {
    /// The engine.
    #[serde(serialize_with = "neff_sim::engine_name::serialize")]
    pub engine: EngineType,
    /// The NEFF slot.
    pub slot: u32,
    /// The profiler's mnemonic.
    pub opcode: String,
    /// Measured issue, ns from the MAIN start.
    pub measured_start_ns: f64,
    /// Predicted issue, ns from the MAIN start.
    pub predicted_start_ns: f64,
    /// Measured duration, ns.
    pub measured_ns: f64,
    /// Predicted duration, ns.
    pub predicted_ns: f64,
    /// Predicted minus measured end, ns.
    pub end_error_ns: f64,
}

fn pct(pred: f64, meas: f64) -> f64 {
    if meas == 0.0 {
        0.0
    } else {
        100.0 * (pred - meas) / meas
    }
}

/// Compares `r` with `p`, for every subgraph both have (the simulation must have been run with
/// [`crate::SimOptions::record`] for the per-instruction parts).
pub fn compare(r: &SimResult, p: &Profile) -> Comparison {
    let subgraphs = r
        .subgraphs
        .iter()
        .filter_map(|sg| subgraph(sg, p))
        .collect();
    Comparison { subgraphs }
}

/// A simulated execution of a slot: (issue from the MAIN start, duration, class).
type Occurrence = (f64, f64, CostClass);

/// One paired instruction: (engine, slot, opcode, measured start, dur, predicted start, dur,
/// class).
struct Pair {
    engine: EngineType,
    slot: u32,
    opcode: String,
    m: (f64, f64),
    s: (f64, f64),
    class: CostClass,
}

fn subgraph(sg: &SubgraphResult, p: &Profile) -> Option<SubgraphComparison> {
    let measured_span = p.span_ns(&sg.name)?;
    let mut prof: Vec<_> = p.neff_instructions(&sg.name).collect();
    prof.sort_by_key(|i| (i.timestamp, i.pc));
    let m0 = prof.first().map_or(0, |i| i.timestamp);
    // Predicted occurrences per (engine, slot), in issue order.
    let mut sim: HashMap<(EngineType, u32), Vec<Occurrence>> = HashMap::new();
    let s0 = sg.main_start_ns as f64;
    if let Some(tl) = &sg.timeline {
        for s in &tl.slices {
            if let Some(slot) = s.slot {
                sim.entry((s.engine, slot))
                    .or_default()
                    .push((s.start_ns - s0, s.dur_ns, s.class));
            }
        }
    }
    let mut seen: HashMap<(EngineType, u32), usize> = HashMap::new();
    let mut pairs = Vec::new();
    let mut busy: BTreeMap<EngineType, Busy> = BTreeMap::new();
    for i in &prof {
        let (Some(engine), Some(slot)) = (i.engine(), i.compiler_pc) else {
            continue;
        };
        busy.entry(engine)
            .or_default()
            .add(ps_from_ns(i.timestamp as f64), ps_from_ns(i.end() as f64));
        let key = (engine, slot as u32);
        let n = seen.entry(key).or_default();
        let Some(&(ss, sd, class)) = sim.get(&key).and_then(|v| v.get(*n)) else {
            continue;
        };
        *n += 1;
        pairs.push(Pair {
            engine,
            slot: slot as u32,
            opcode: i.opcode.clone(),
            m: ((i.timestamp - m0) as f64, i.duration as f64),
            s: (ss, sd),
            class,
        });
    }
    let engines = sg
        .engines
        .iter()
        .map(|e| EngineComparison {
            engine: e.engine,
            measured_busy_ns: busy.get(&e.engine).map_or(0, |b| ns(b.total())),
            predicted_busy_ns: e.busy_ns,
        })
        .collect();
    Some(SubgraphComparison {
        name: sg.name.clone(),
        measured_span_ns: measured_span,
        predicted_span_ns: sg.span_ns,
        span_error_pct: pct(sg.span_ns as f64, measured_span as f64),
        engines,
        classes: classes(&pairs),
        queues: queues(sg, p),
        paired: pairs.len() as u64,
        largest: largest(&pairs),
    })
}

/// Per queue: transfers, bytes, and each transfer's (start, end) ns.
type QueueSpans = (u64, u64, Vec<(u64, u64)>);

/// The measured DMA queues of `sg`, named from the profile's queue table, beside the simulated
/// queue of the same name.
fn queues(sg: &SubgraphResult, p: &Profile) -> Vec<QueueComparison> {
    let name = |engine: u64, queue: u64| {
        p.dma_queue_name(&sg.name, engine, queue)
            .map_or_else(|| format!("q{queue}"), str::to_string)
    };
    let mut per: BTreeMap<String, QueueSpans> = BTreeMap::new();
    for d in p.dma.iter().filter(|d| d.subgraph == sg.name) {
        let e = per.entry(name(d.dma_engine, d.dma_queue)).or_default();
        e.0 += 1;
        e.1 += d.size;
        e.2.push((d.timestamp, d.timestamp.saturating_add(d.duration)));
    }
    per.into_iter()
        .map(|(name, (n, bytes, mut spans))| {
            spans.sort_unstable();
            let mut b = Busy::default();
            for (s, e) in spans {
                b.add(ps_from_ns(s as f64), ps_from_ns(e as f64));
            }
            let sim = sg.queues.iter().find(|q| q.name == name);
            QueueComparison {
                measured_transfers: n,
                measured_bytes: bytes,
                measured_busy_ns: ns(b.total()),
                predicted_bytes: sim.map_or(0, |q| q.bytes),
                predicted_busy_ns: sim.map_or(0, |q| q.busy_ns),
                name,
            }
        })
        .collect()
}

fn classes(pairs: &[Pair]) -> Vec<ClassComparison> {
    let mut per: BTreeMap<(EngineType, CostClass), (u64, f64, f64)> = BTreeMap::new();
    for p in pairs {
        let e = per.entry((p.engine, p.class)).or_default();
        e.0 += 1;
        e.1 += p.m.1;
        e.2 += p.s.1;
    }
    per.into_iter()
        .map(|((engine, class), (n, m, s))| {
            let (mm, sm) = (m / n as f64, s / n as f64);
            ClassComparison {
                engine,
                class,
                count: n,
                measured_mean_ns: mm,
                predicted_mean_ns: sm,
                error_pct: pct(sm, mm),
            }
        })
        .collect()
}

fn largest(pairs: &[Pair]) -> Vec<InstructionError> {
    let mut errs: Vec<InstructionError> = pairs
        .iter()
        .map(|p| InstructionError {
            engine: p.engine,
            slot: p.slot,
            opcode: p.opcode.clone(),
            measured_start_ns: p.m.0,
            predicted_start_ns: p.s.0,
            measured_ns: p.m.1,
            predicted_ns: p.s.1,
            end_error_ns: (p.s.0 + p.s.1) - (p.m.0 + p.m.1),
        })
        .collect();
    errs.sort_by(|a, b| b.end_error_ns.abs().total_cmp(&a.end_error_ns.abs()));
    errs.truncate(LARGEST);
    errs
}

/// The comparison as text.
pub fn render(c: &Comparison) -> String {
    let mut s = String::new();
    for sg in &c.subgraphs {
        let _ = writeln!(
            s,
            "{} vs profile: span measured {:.3} us, predicted {:.3} us ({:+.1}%), {} instructions paired",
            sg.name,
            sg.measured_span_ns as f64 / 1000.0,
            sg.predicted_span_ns as f64 / 1000.0,
            sg.span_error_pct,
            sg.paired
        );
        for e in &sg.engines {
            let _ = writeln!(
                s,
                "  {:<5} busy measured {:>9.3} us  predicted {:>9.3} us",
                e.engine.key(),
                e.measured_busy_ns as f64 / 1000.0,
                e.predicted_busy_ns as f64 / 1000.0
            );
        }
        for k in &sg.classes {
            let _ = writeln!(
                s,
                // 17: the longest class name, LOAD_WEIGHTS_FP32 (D814).
                "  {:<5} {:<17} x{:<4} mean measured {:>8.1} ns  predicted {:>8.1} ns  ({:+.1}%)",
                k.engine.key(),
                k.class.name(),
                k.count,
                k.measured_mean_ns,
                k.predicted_mean_ns,
                k.error_pct
            );
        }
        for q in &sg.queues {
            let _ = writeln!(
                s,
                "  queue {:<18} measured {:>6} transfer(s) {:>10} bytes busy {:>9.3} us  predicted {:>10} bytes busy {:>9.3} us",
                q.name,
                q.measured_transfers,
                q.measured_bytes,
                q.measured_busy_ns as f64 / 1000.0,
                q.predicted_bytes,
                q.predicted_busy_ns as f64 / 1000.0
            );
        }
        if !sg.largest.is_empty() {
            let _ = writeln!(
                s,
                "  largest errors (end of the instruction, from MAIN start):"
            );
        }
        for x in &sg.largest {
            let _ = writeln!(
                s,
                "    {:<5} slot {:<5} {:<18} measured {:>9.1} +{:<7.1} predicted {:>9.1} +{:<7.1} ({:+.1} ns)",
                x.engine.key(),
                x.slot,
                x.opcode,
                x.measured_start_ns,
                x.measured_ns,
                x.predicted_start_ns,
                x.predicted_ns,
                x.end_error_ns
            );
        }
    }
    s
}
