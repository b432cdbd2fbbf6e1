//! The fit: the cost table's constants from hardware profiles and captures, by closed-form
//! statistics (medians and weighted least squares), so a fit over every shared capture takes a
//! fraction of a second and the leave-one-capture-out test can refit once per capture
//! (`tests/leave_one_out.rs`; docs/performance.md "Cost model").
//!
//! Method (decision D196, grown by D443): every NEFF is loaded under the runtime device model,
//! whose device pcs are the hardware's, so each profiled instruction is paired with the
//! simulator's decoded op at its pc. Per engine, in issue order, each instruction gives
//! - a latency sample: its duration (issue to completion);
//! - a dispatch sample: the gap to the next issue, when the next neither streams nor waits;
//! - an occupancy sample: the gap to the next issue, when both stream and the next does not
//!   wait (the datapath was the bottleneck).
//!
//! Samples are grouped by (engine, class, work) and reduced to their median; each (engine,
//! class) gets `base + per_unit * work` by least squares over its groups, or, with one work
//! size only, the engine's pooled per-unit slope and a fitted base. The PE array is priced by
//! its clock (one moving column per cycle), and its throttle from the MATMUL gaps that run
//! slower than that. DMA: from the transfers of a profile that has them ([`dma`]).

use std::collections::BTreeMap;

use neff_isa::EngineType;
use neff_load::model::LoadedModel;
use neff_profile::{Profile, ProfiledInstruction, mnemonic};

use super::{ClassCost, ClassRow, CostClass, CostTable, Linear, Throttle};
use crate::decode::EngineProgram;
use crate::op::{Op, OpKind};
use crate::wait::Wait;
use crate::{SimOptions, compile_images as compile};

mod dma;
mod observed;
mod preamble;
mod release;

pub use observed::{ObserveError, load_under, runtime_like};

/// One run the fit reads: a NEFF loaded under the runtime device model and its profile.
#[derive(Debug, Clone, Copy)]
pub struct Observation<'a> {
    /// The loaded NEFF.
    pub model: &'a LoadedModel,
    /// What the hardware measured running it.
    pub profile: &'a Profile,
}

/// A stream is fitted when at most one of this many of its NEFF instructions disagrees
/// with the image at its pc.
const MAX_DISAGREEING_PER: usize = 20;

/// MATMULs streaming fewer moving columns say nothing about the throttle (D443).
const MIN_STREAMED_COLUMNS: u64 = 128;

/// A PE MATMUL: (run, subgraph, issue ns, work, gap to the next MATMUL issue ns).
type MatmulGap = (usize, String, f64, u64, f64);

/// Samples of one kind per (engine, class): (work, value ns).
type Samples = BTreeMap<(EngineType, CostClass), Vec<(u64, f64)>>;

#[derive(Default)]
struct All {
    latency: Samples,
    dispatch: Samples,
    occupancy: Samples,
    /// Upper bounds of dispatch (LDWEIGHTS -> MATMUL): reduced to a low quantile.
    bounds: Samples,
    /// PE MATMUL: (run, subgraph, issue ns, work, gap to the next MATMUL issue ns).
    matmuls: Vec<MatmulGap>,
    /// PE MATMUL durations, in the order of `matmuls`.
    matmul_durations: Vec<f64>,
    /// Issue gaps of back-to-back PE MATMULs (only LDWEIGHTS between, none waiting) whose
    /// moving columns per pass are fewer than their stationary columns, ns per pass (D812).
    matmul_floor: Vec<f64>,
    /// Back-to-back PE MATMULs (as for `matmul_floor`) whose completion was held past its own
    /// latency: the end-to-end interval per moving column of the second, ns (D813).
    matmul_drain: Vec<f64>,
    /// Whether each of `matmul_durations` was held so (left out of the latency line).
    matmul_durations_held: Vec<bool>,
    /// Whether each of `matmul_durations` issued with no MATMUL in flight (D815).
    matmul_durations_idle: Vec<bool>,
    /// Issue times (run, subgraph, ns) of the MATMULs held so: left out of the latency line.
    matmul_held: std::collections::BTreeSet<(usize, String, u64)>,
    pe_clock_ghz: Vec<f64>,
    dma: dma::DmaSamples,
    /// Issue-to-issue gaps of consecutive descriptor-generating DMA instructions on one
    /// engine, ns (D622).
    dge_gaps: Vec<f64>,
    /// Consecutive descriptor-generating DMA instructions on one engine: (engine, issue gap,
    /// first's duration, second's duration), ns (D742).
    dge_pairs: Vec<(EngineType, f64, f64, f64)>,
}

/// Fits every constant the observations measure; what none of them measures keeps the value
/// of `prior` (its clocks, and its DMA constants when no observation holds transfers).
pub fn fit(observations: &[Observation<'_>], prior: &CostTable) -> CostTable {
    fit_with_notes(observations, prior).0
}

/// The counts behind constants that are not table rows: the comments beside them in
/// `table.rs`.
#[derive(Debug, Clone, Default)]
pub struct FitNotes {
    /// The DMA constants' samples.
    pub dma: String,
    /// The MATMUL floor's samples and spread (D812).
    pub matmul_floor: String,
    /// The MATMUL drain's samples and spread (D813).
    pub matmul_drain: String,
    /// The idle-array MATMUL's samples (D815).
    pub matmul_idle: String,
}

/// [`fit`], with the counts behind the constants that are not rows (the comments beside them in
/// `table.rs`).
pub fn fit_with_notes(
    observations: &[Observation<'_>],
    prior: &CostTable,
) -> (CostTable, FitNotes) {
    let mut all = All::default();
    for (run, o) in observations.iter().enumerate() {
        if let Some(m) = &o.profile.metadata
            && m.pe_clock_freq > 0.0
        {
            all.pe_clock_ghz.push(m.pe_clock_freq);
        }
        collect(run, o.model, o.profile, &mut all);
        dma::collect(o.model, o.profile, &mut all.dma);
    }
    if all.pe_clock_ghz.is_empty() {
        all.pe_clock_ghz.push(prior.clocks.pe_ghz);
    }
    let dma = if all.dma.is_empty() {
        "no transfers measured: the prior table's constants".to_string()
    } else {
        dma::notes(&all.dma)
    };
    let t = table(&all, prior);
    let matmul_floor = floor_notes(&all.matmul_floor, t.clocks.pe_ghz);
    let matmul_drain = quartiles(&all.matmul_drain, "held MATMULs", "ns a moving column");
    let idle = all.matmul_durations_idle.iter().filter(|x| **x).count();
    let matmul_idle = format!(
        "{idle} MATMULs on an idle array, {} behind another",
        all.matmul_durations_idle.len() - idle
    );
    (
        t,
        FitNotes {
            dma,
            matmul_floor,
            matmul_drain,
            matmul_idle,
        },
    )
}

/// The op each profiled instruction ran, per engine, in issue order: the op at its device pc,
/// when the instruction the hardware ran there is the one the loaded image holds (a capture
/// names it from the runtime's own image). Where neffkit's lowering and the runtime's differ
/// (moe_v6b, moe_megakernel: the runtime writes a MOVE beside each offset-register DIRECT2D,
/// D443), the pcs after the difference hold other instructions: those pairs are left out rather
/// than fitted to the wrong class: a stream where more than one instruction in
/// [`MAX_DISAGREEING_PER`] disagrees is not fitted at all (dropping single pairs would join
/// instructions that did not run back to back).
fn paired<'a>(
    programs: &'a [EngineProgram],
    sg: &'a neff_load::model::LoadedSubgraph,
    profile: &'a Profile,
) -> Vec<(EngineType, Vec<(&'a ProfiledInstruction, &'a Op)>)> {
    programs
        .iter()
        .map(|p| {
            let (e, ops) = (p.engine, &p.ops);
            let image = sg.engine(e).map_or(&[][..], |l| &l.image.bytes[..]);
            let agrees = |i: &ProfiledInstruction| {
                let at = (i.pc as usize).saturating_mul(neff_isa::SLOT_BYTES);
                let name = (image.get(at..))
                    .and_then(neff_isa::Slot::from_slice)
                    .and_then(|s| s.opcode().mnemonic());
                // A report names its own opcodes; an unnamed row (none) is not checked.
                i.opcode.is_empty()
                    || name.is_none_or(|n| {
                        mnemonic::agrees(&i.opcode, i.compiler_opcode.as_deref(), n)
                    })
            };
            let mut v: Vec<_> = profile
                .instructions_of(&sg.name, e)
                .filter_map(|i| Some((i, ops.get(i.pc as usize)?)))
                .collect();
            // Only the NEFF's own slots are checked: the runtime device model's PREAMBLE and
            // POSTAMBLE hold placeholders where no trace shows the runtime's code.
            let checked = v.iter().filter(|(i, _)| p.region(i.pc as usize).is_neff());
            let (n, bad) = checked.fold((0usize, 0usize), |(n, b), (i, _)| {
                (n + 1, b + usize::from(!agrees(i)))
            });
            if bad * MAX_DISAGREEING_PER > n {
                v.clear();
            }
            v.sort_by_key(|(i, _)| (i.timestamp, i.pc));
            (e, v)
        })
        .collect()
}

/// Whether `op` hands its engine's descriptor generator a DIRECT2D (D622).
pub(crate) fn generates_descriptors(prog: &EngineProgram, op: &Op) -> bool {
    matches!(
        prog.kind(op),
        OpKind::DmaStart {
            descriptor: Some(_),
            ..
        }
    )
}

fn waits(prog: &EngineProgram, op: &Op) -> bool {
    prog.waits(op).iter().any(|w| !matches!(w, Wait::None))
}

fn collect(pi: usize, model: &LoadedModel, profile: &Profile, all: &mut All) {
    // The cost model only prices; any table decodes the same ops.
    for sg in &model.subgraphs {
        let Ok(programs) = compile(model, sg, &SimOptions::default()) else {
            continue;
        };
        let per = paired(&programs, sg, profile);
        preamble::collect(sg, profile, &mut all.latency, &mut all.dispatch);
        // `per` is in program order.
        let sems = release::SemRecords::of(profile, &sg.name);
        for ((e, seq), prog) in per.iter().zip(&programs) {
            let work = |op: &Op| prog.price(op).work;
            let class = |op: &Op| prog.class(op);
            for (k, (i, op)) in seq.iter().enumerate() {
                let key = (*e, class(op));
                // A waiting instruction counts from its release when the semaphore records
                // place it (D741), from its stamp otherwise.
                let released = (waits(prog, op))
                    .then(|| sems.release_of(i, &prog.waits(op)))
                    .flatten();
                let from = released.unwrap_or(i.timestamp);
                let sync_wait =
                    matches!(class(op), CostClass::Sync | CostClass::Control) && waits(prog, op);
                // A SYNC / CONTROL wait's duration is its wait unless the release is known.
                if (!sync_wait || released.is_some()) && class(op) != CostClass::RuntimeOpaque {
                    let end = i.timestamp + i.duration;
                    all.latency
                        .entry(key)
                        .or_default()
                        .push((work(op), end.saturating_sub(from) as f64));
                }
                let Some((next, nop)) = seq.get(k + 1) else {
                    continue;
                };
                let gap = next.timestamp.saturating_sub(from) as f64;
                if waits(prog, nop) || matches!(prog.kind(nop), OpKind::Drain) {
                    continue;
                }
                if class(op) == CostClass::Matmul && class(nop) != CostClass::Matmul {
                    // The MATMUL -> LDWEIGHTS gap: the array is not what the next waits for.
                    all.dispatch.entry(key).or_default().push((work(op), gap));
                } else if class(op).streams() && class(nop).streams() {
                    all.occupancy.entry(key).or_default().push((work(op), gap));
                } else if !class(nop).streams() {
                    all.dispatch.entry(key).or_default().push((work(op), gap));
                } else if class(op).loads_weights() {
                    // LDWEIGHTS -> MATMUL: the load, when the array was free (lower envelope).
                    all.bounds.entry(key).or_default().push((work(op), gap));
                }
            }
            let dge: Vec<(usize, f64, f64)> = (seq.iter().enumerate())
                .filter(|(_, (_, o))| generates_descriptors(prog, o))
                .map(|(k, (i, _))| (k, i.timestamp as f64, i.duration as f64))
                .collect();
            // The issue floor from back-to-back ones only (nothing else issued between).
            (all.dge_gaps).extend(
                (dge.windows(2))
                    .filter(|w| w[1].0 == w[0].0 + 1)
                    .map(|w| w[1].1 - w[0].1),
            );
            let dge: Vec<(f64, f64)> = dge.iter().map(|x| (x.1, x.2)).collect();
            (all.dge_pairs).extend(
                dge.windows(2)
                    .map(|w| (*e, w[1].0 - w[0].0, w[0].1, w[1].1)),
            );
            if *e == EngineType::Pe {
                let held = matmul_pairs(sg, seq, prog, all);
                (all.matmul_held).extend(held.into_iter().map(|t| (pi, sg.name.clone(), t)));
                let mms: Vec<_> = seq
                    .iter()
                    .filter(|(_, o)| class(o) == CostClass::Matmul)
                    .collect();
                // The latest end of the MATMULs before: at or after it the array is drained.
                let mut drained = 0;
                for w in mms.windows(2) {
                    let (a, op) = w[0];
                    let gap = w[1].0.timestamp.saturating_sub(a.timestamp) as f64;
                    let held = all
                        .matmul_held
                        .contains(&(pi, sg.name.clone(), a.timestamp));
                    all.matmul_durations_held.push(held);
                    all.matmul_durations_idle.push(a.timestamp >= drained);
                    drained = drained.max(a.end());
                    all.matmuls
                        .push((pi, sg.name.clone(), a.timestamp as f64, work(op), gap));
                    all.matmul_durations.push(a.duration as f64);
                }
            }
        }
    }
}

/// An idle PE array: a gap this long or longer is no back-to-back sample (as in
/// [`pe_array`]'s episodes).
const IDLE_GAP_NS: f64 = 1000.0;

/// A MATMUL's completion is held by the one before it when it lasts this much longer, ns.
const HELD_NS: u64 = 10;

/// Back-to-back PE MATMULs: only LDWEIGHTS issued between them, none of them waited on events,
/// the gap short of an idle array. D812's samples: the issue gap when the first streamed fewer
/// moving columns a pass than the stationary columns loaded before it (the case the floor can
/// set), ns per pass. D813's: when the second lasts longer than the first (its completion
/// waited for the first's results to leave), the end-to-end interval per moving column of the
/// second. Returns the issue times of those held MATMULs.
fn matmul_pairs(
    sg: &neff_load::model::LoadedSubgraph,
    seq: &[(&ProfiledInstruction, &Op)],
    prog: &EngineProgram,
    all: &mut All,
) -> Vec<u64> {
    let mut held = Vec::new();
    let image = sg
        .engine(prog.engine)
        .map_or(&[][..], |l| &l.image.bytes[..]);
    let passes = |pc: u64| {
        let at = (pc as usize).saturating_mul(neff_isa::SLOT_BYTES);
        (image.get(at..))
            .and_then(neff_isa::Slot::from_slice)
            .map_or(1, |s| u64::from(super::features(&s).passes.max(1)))
    };
    let waited = |i: &ProfiledInstruction| i.evt_wait_time.unwrap_or(0) > 1;
    // The stationary columns loaded; the last MATMUL, its passes and whether it can be floored.
    let mut stationary = 0;
    let mut last: Option<(&ProfiledInstruction, u64, bool)> = None;
    for (i, op) in seq {
        let work = prog.price(op).work;
        match prog.class(op) {
            c if c.loads_weights() => {
                stationary = work;
                if waited(i) {
                    last = None;
                }
            }
            CostClass::Matmul => {
                let p = passes(i.pc);
                if let Some((a, p0, floored)) = last
                    && !waited(i)
                {
                    let gap = i.timestamp.saturating_sub(a.timestamp) as f64;
                    if gap < IDLE_GAP_NS {
                        if floored {
                            all.matmul_floor.push(gap / p0 as f64);
                        }
                        if i.duration > a.duration + HELD_NS && work >= p {
                            let interval = i.end().saturating_sub(a.end()) as f64;
                            all.matmul_drain.push(interval / (work / p) as f64);
                            held.push(i.timestamp);
                        }
                    }
                }
                last = Some((i, p, work / p < stationary));
            }
            _ => last = None,
        }
    }
    held
}

/// How many floor samples, and their quartiles in PE cycles a pass.
fn floor_notes(samples: &[f64], ghz: f64) -> String {
    let v: Vec<f64> = samples.iter().map(|g| g * ghz).collect();
    quartiles(&v, "back-to-back MATMUL gaps", "PE cycles a pass")
}

/// `N what, quartiles a / b / c unit`, or that there were none.
fn quartiles(samples: &[f64], what: &str, unit: &str) -> String {
    if samples.is_empty() {
        return format!("no {what}: the prior table's");
    }
    let mut v = samples.to_vec();
    v.sort_by(f64::total_cmp);
    let q = |f: f64| v[((v.len() - 1) as f64 * f) as usize];
    format!(
        "{} {what}, quartiles {:.2} / {:.2} / {:.2} {unit}",
        v.len(),
        q(0.25),
        q(0.5),
        q(0.75)
    )
}

/// The 10th percentile: the lower envelope of upper bounds.
fn low(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 10).copied().unwrap_or(0.0)
}

pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return 0.0;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Groups by work, each reduced to its median.
fn groups(samples: &[(u64, f64)]) -> Vec<(f64, f64, usize)> {
    groups_by(samples, median)
}

/// Groups by work, each reduced by `reduce`.
fn groups_by(samples: &[(u64, f64)], reduce: fn(Vec<f64>) -> f64) -> Vec<(f64, f64, usize)> {
    let mut by: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    for &(w, v) in samples {
        by.entry(w).or_default().push(v);
    }
    by.into_iter()
        .map(|(w, vs)| {
            let n = vs.len();
            (w as f64, reduce(vs), n)
        })
        .collect()
}

/// Weighted least squares `v = a + b w` over groups; `None` with fewer than two works.
fn line(g: &[(f64, f64, usize)]) -> Option<(f64, f64)> {
    if g.len() < 2 {
        return None;
    }
    let sw: f64 = g.iter().map(|x| x.2 as f64).sum();
    let mx = g.iter().map(|x| x.0 * x.2 as f64).sum::<f64>() / sw;
    let my = g.iter().map(|x| x.1 * x.2 as f64).sum::<f64>() / sw;
    let sxx: f64 = g.iter().map(|x| (x.0 - mx).powi(2) * x.2 as f64).sum();
    let sxy: f64 = g.iter().map(|x| (x.0 - mx) * (x.1 - my) * x.2 as f64).sum();
    let b = if sxx > 0.0 { (sxy / sxx).max(0.0) } else { 0.0 };
    Some(((my - b * mx).max(0.0), b))
}

/// `base + per_unit * work` for every (engine, class) of `s`, pooling each engine's slope for
/// classes seen at one work size.
fn fit_samples(s: &Samples) -> BTreeMap<(EngineType, CostClass), (f64, f64, usize)> {
    let mut out = BTreeMap::new();
    let mut slopes: BTreeMap<EngineType, Vec<f64>> = BTreeMap::new();
    // Only streaming classes' slopes are a streaming rate (a runtime load's per-register
    // cost is not, D741).
    for (k, v) in s.iter().filter(|(k, _)| k.1.streams()) {
        if let Some((_, b)) = line(&groups(v)) {
            slopes.entry(k.0).or_default().push(b);
        }
    }
    for (k, v) in s {
        let g = groups(v);
        let n = v.len();
        let (a, b) = line(&g).unwrap_or_else(|| {
            let b = if k.1.streams() {
                slopes.get(&k.0).map_or(0.0, |x| median(x.clone()))
            } else {
                0.0
            };
            let (w, m, _) = g[0];
            ((m - b * w).max(0.0), b)
        });
        out.insert(*k, (a, b, n));
    }
    out
}

/// Occupancy per streaming (engine, class): fitted where instructions ran back to back (a
/// single work size takes the class's latency slope: one streaming rate); elsewhere the latency
/// minus the engine's pipeline depth (the median latency - occupancy where both are known).
fn occupancy(
    s: &Samples,
    lat: &BTreeMap<(EngineType, CostClass), (f64, f64, usize)>,
) -> BTreeMap<(EngineType, CostClass), (f64, f64, usize)> {
    let mut out = BTreeMap::new();
    let mut depth: BTreeMap<EngineType, Vec<f64>> = BTreeMap::new();
    for (k, v) in s {
        let g = groups(v);
        let slope = lat.get(k).map_or(0.0, |l| l.1);
        let (a, b) = line(&g).unwrap_or_else(|| ((g[0].1 - slope * g[0].0).max(0.0), slope));
        if let Some(l) = lat.get(k) {
            for &(w, m, _) in &g {
                depth.entry(k.0).or_default().push(l.0 + l.1 * w - m);
            }
        }
        out.insert(*k, (a, b, v.len()));
    }
    for (k, l) in lat {
        if k.1.streams() && !out.contains_key(k) && k.1 != CostClass::Matmul {
            let d = depth.get(&k.0).map_or(0.0, |d| median(d.clone()));
            out.insert(*k, ((l.0 - d).max(0.0), l.1, 0));
        }
    }
    out
}

/// The PE clock, the array's fast base, the throttle factor, warm-up, idle reset, and the MATMUL latency line.
///
/// A MATMUL's gap to the next (back to back) is fast or slow against one column per cycle
/// (ratio <= 1.5 or above). Episodes are split at idle gaps over 1 us; an episode that starts
/// slow after one that ended fast bounds the idle that re-throttles from above, one that starts
/// fast bounds it from below (the reset is their geometric mean). Warm-up: the array's busy
/// time from the first MATMUL after a reset idle to the first fast one (D856).
fn pe_array(all: &All) -> (f64, f64, f64, f64, f64, (f64, f64)) {
    let ghz = median(all.pe_clock_ghz.clone()).max(0.1);
    let per = 1.0 / ghz;
    // (ts, state: Some(slow?) / None idle, gap)
    let state = |m: &MatmulGap| {
        let ideal = per * m.3 as f64;
        // A MATMUL streaming fewer columns than the array has rows is dominated by its fixed
        // costs, not the streaming rate the throttle slows (moe: 1-column token matmuls).
        if m.3 < MIN_STREAMED_COLUMNS || m.4 > 1000.0 || m.4 > 3.0 * ideal + 200.0 {
            None
        } else {
            Some(m.4 / ideal > 1.5)
        }
    };
    let mut slow_ratio = Vec::new();
    let mut fast_base = Vec::new();
    for m in &all.matmuls {
        match state(m) {
            Some(true) => slow_ratio.push(m.4 / (per * m.3 as f64)),
            Some(false) => fast_base.push(m.4 - per * m.3 as f64),
            None => {}
        }
    }
    let mut runs: BTreeMap<(usize, String), Vec<&MatmulGap>> = BTreeMap::new();
    for m in &all.matmuls {
        runs.entry((m.0, m.1.clone())).or_default().push(m);
    }
    let (mut idle_fast, mut idle_slow) = (0.0f64, f64::INFINITY);
    // Episodes: (idle before, first state, last state, ms).
    let mut episodes = Vec::new();
    for ms in runs.values() {
        let mut cur: Vec<&MatmulGap> = Vec::new();
        let mut idle = f64::INFINITY;
        for m in ms {
            cur.push(m);
            if m.4 > 1000.0 {
                episodes.push((idle, std::mem::take(&mut cur)));
                idle = m.4;
            }
        }
        if !cur.is_empty() {
            episodes.push((idle, cur));
        }
        episodes.push((f64::NAN, Vec::new())); // run separator
    }
    // The majority of an episode's first three known states (its first gap can be a bubble).
    let first_state = |ep: &[&MatmulGap]| {
        let s: Vec<bool> = ep.iter().filter_map(|m| state(m)).take(3).collect();
        (!s.is_empty()).then(|| 2 * s.iter().filter(|x| **x).count() > s.len())
    };
    let last_state = |ep: &[&MatmulGap]| ep.iter().rev().find_map(|m| state(m));
    for w in episodes.windows(2) {
        let ((_, prev), (idle, ep)) = (&w[0], &w[1]);
        if prev.is_empty() || ep.is_empty() || !idle.is_finite() {
            continue;
        }
        match (last_state(prev), first_state(ep)) {
            (Some(false), Some(true)) => idle_slow = idle_slow.min(*idle),
            (Some(false), Some(false)) => idle_fast = idle_fast.max(*idle),
            _ => {}
        }
    }
    let reset = match (idle_slow.is_finite(), idle_fast > 0.0) {
        (true, true) => (idle_slow * idle_fast).sqrt(),
        (true, false) => idle_slow / 2.0,
        (false, true) => idle_fast * 2.0,
        (false, false) => 1.0e4,
    };
    let factor = if slow_ratio.is_empty() {
        1.0
    } else {
        median(slow_ratio)
    };
    // A throttled MATMUL's hold on the array, as the simulator prices it.
    let base = median(fast_base.clone()).max(0.0);
    let mut warm = Vec::new();
    for ms in runs.values() {
        let mut k = 0;
        while k < ms.len() {
            let after_reset = k == 0 || ms[k - 1].4 >= reset;
            // D856: the warm-up is the array's busy time in the episode (each MATMUL's gap, at
            // most its throttled streaming time), idle gaps left out: an idle does not end an
            // episode that has not warmed up. Timed from an episode's first MATMUL only when that
            // one shows its state (moe_v6b's first 128-column MATMUL comes 28 us after its
            // 1-column ones began).
            if after_reset && state(ms[k]).is_some() && first_state(&ms[k..]) == Some(true) {
                let fast = ms[k..].iter().position(|m| state(m) == Some(false));
                let Some(f) = fast else { break };
                let busy = (ms[k..k + f].iter())
                    .map(|m| m.4.min(base + factor * per * m.3 as f64))
                    .sum();
                warm.push(busy);
                k += f;
            }
            k += 1;
        }
    }
    // MATMUL latency: a line over every MATMUL's duration with the throttle's extra streaming
    // taken out (a 1-column matmul and a 512-column one both say what the fixed part is).
    let idle_extra = matmul_idle_extra(all);
    let unthrottled: Vec<(u64, f64)> = (all.matmuls.iter().zip(&all.matmul_durations))
        .zip(
            all.matmul_durations_held
                .iter()
                .zip(&all.matmul_durations_idle),
        )
        .filter(|(_, (held, _))| !**held)
        .map(|((m, d), (_, idle))| {
            // D815: the line is the latency behind another MATMUL.
            let d = if *idle { d - idle_extra } else { *d };
            let slow = m.3 >= MIN_STREAMED_COLUMNS && state(m) == Some(true);
            let extra = if slow {
                (factor - 1.0) * per * m.3 as f64
            } else {
                0.0
            };
            (m.3, d - extra)
        })
        .collect();
    let (lat_base, lat_per) = line(&groups(&unthrottled)).unwrap_or_else(|| {
        let base = unthrottled
            .iter()
            .map(|&(w, d)| d - per * w as f64)
            .collect();
        (median(base).max(0.0), per)
    });
    (
        per,
        median(fast_base).max(0.0),
        factor,
        median(warm),
        reset,
        (lat_base, lat_per),
    )
}

/// D815: what a MATMUL issued on an idle array (no MATMUL in flight) lasts longer than one of
/// the same work issued behind another: per work seen both ways (neither held by the drain),
/// the difference of their median durations; the median of those, weighted by the idle
/// samples (0 when no work is seen both ways).
fn matmul_idle_extra(all: &All) -> f64 {
    let mut by: BTreeMap<u64, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    let rows = (all.matmuls.iter().zip(&all.matmul_durations)).zip(
        all.matmul_durations_held
            .iter()
            .zip(&all.matmul_durations_idle),
    );
    for ((m, d), (held, idle)) in rows {
        if *held {
            continue;
        }
        let e = by.entry(m.3).or_default();
        if *idle { &mut e.0 } else { &mut e.1 }.push(*d);
    }
    let mut diffs = Vec::new();
    for (idle, behind) in by.into_values() {
        if idle.is_empty() || behind.is_empty() {
            continue;
        }
        let d = median(idle.clone()) - median(behind);
        diffs.extend(std::iter::repeat_n(d, idle.len()));
    }
    median(diffs).max(0.0)
}

/// The in-sample residual of `l` over latency samples: the median |predicted - measured| /
/// measured, percent.
fn residual(l: Linear, samples: Option<&Vec<(u64, f64)>>) -> f64 {
    let Some(s) = samples else { return 0.0 };
    let errs: Vec<f64> = s
        .iter()
        .filter(|x| x.1 > 0.0)
        .map(|&(w, m)| 100.0 * ((l.base_ns + l.per_unit_ns * w as f64) - m).abs() / m)
        .collect();
    if errs.is_empty() { 0.0 } else { median(errs) }
}

fn table(all: &All, prior: &CostTable) -> CostTable {
    let lat = fit_samples(&all.latency);
    let mut disp = fit_samples(&all.dispatch);
    for (k, v) in &all.bounds {
        // D812: every gap after an LDWEIGHTS bounds its dispatch from above, whatever follows
        // (a MATMUL may wait for the array: the floor, the last one's columns), so its dispatch
        // is the lower envelope of all of them, one constant (on a free array a MATMUL issues
        // 1-4 ns after an LDWEIGHTS of 1, 2 or 128 rows, either width); the 4 gaps to a
        // non-streaming instruction alone said 42.5 ns.
        let mut v = v.clone();
        v.extend(all.dispatch.get(k).into_iter().flatten());
        let d = low(v.iter().map(|x| x.1).collect());
        disp.insert(*k, (d, 0.0, v.len()));
    }
    let occ = occupancy(&all.occupancy, &lat);
    let (per, fast_base, factor, warm, idle, matmul_lat) = pe_array(all);
    let mut keys: Vec<_> = lat
        .keys()
        .chain(disp.keys())
        .chain(occ.keys())
        .copied()
        .collect();
    keys.sort();
    keys.dedup();
    let mut rows = Vec::new();
    for k in keys {
        let mut l = lat.get(&k).map_or((0.0, 0.0), |x| (x.0, x.1));
        if k == (EngineType::Pe, CostClass::Matmul) {
            // A fixed part plus the array's streaming time (D195: the throttle scales the latter).
            l = matmul_lat;
        }
        // No dispatch seen: the same class on the other engines, else its latency.
        let others: Vec<f64> = disp
            .iter()
            .filter(|(o, _)| o.1 == k.1)
            .map(|(_, x)| x.0)
            .collect();
        let mut d = disp.get(&k).map_or_else(
            || {
                if others.is_empty() {
                    l
                } else {
                    (median(others), 0.0)
                }
            },
            |x| (x.0, x.1),
        );
        let mut o = occ.get(&k).map_or((0.0, 0.0), |x| (x.0, x.1));
        if k == (EngineType::Pe, CostClass::Matmul) {
            // The array: one moving column per PE cycle.
            o = (fast_base, per);
        }
        if k.1.streams() && d.0 + d.1 == 0.0 {
            d = (2.0, 0.0);
        }
        let n: usize = [&lat, &disp, &occ]
            .iter()
            .filter_map(|m| m.get(&k).map(|x| x.2))
            .sum();
        let lin = |v: (f64, f64)| Linear {
            base_ns: round4(v.0),
            per_unit_ns: round4(v.1),
        };
        let latency = lin(l);
        rows.push(ClassRow {
            engine: k.0,
            class: k.1,
            cost: ClassCost {
                dispatch: lin(d),
                latency,
                occupancy: lin(o),
            },
            samples: n as u32,
            residual_pct: round4(residual(latency, all.latency.get(&k)) * 10.0) / 10.0,
        });
    }
    let pe_throttle = Throttle {
        factor: round4(factor),
        warm_ns: round4(warm),
        idle_reset_ns: round4(idle),
    };
    // D812: the floor in PE cycles a pass, the median of its samples.
    let matmul_floor_columns = if all.matmul_floor.is_empty() {
        prior.matmul_floor_columns
    } else {
        round4(median(all.matmul_floor.clone()) / per)
    };
    // D813: the drain per moving column, the median of the held MATMULs' intervals.
    let matmul_drain_ns_per_column = if all.matmul_drain.is_empty() {
        prior.matmul_drain_ns_per_column
    } else {
        round4(median(all.matmul_drain.clone()))
    };
    let mut dma = dma::fit(&all.dma).unwrap_or(prior.dma);
    if !all.dge_gaps.is_empty() {
        // A floor: the lower envelope of the back-to-back gaps.
        dma.dge_interval_ns = round4(low(all.dge_gaps.clone()));
    }
    dma.dge_job_ns = dge_jobs(&all.dge_pairs, dma.dge_interval_ns);
    CostTable {
        rows,
        default_cost: prior.default_cost,
        dma,
        collective: dma,
        pe_throttle,
        matmul_floor_columns,
        matmul_drain_ns_per_column,
        matmul_idle_ns: if all.matmuls.is_empty() {
            prior.matmul_idle_ns
        } else {
            round4(matmul_idle_extra(all))
        },
        clocks: super::Clocks {
            pe_ghz: median(all.pe_clock_ghz.clone()),
            ..prior.clocks
        },
    }
}

/// A queued job's duration grows by this much at least before it counts as queued, ns.
const DGE_GROWTH_NS: f64 = 10.0;

/// Per engine, its descriptor generator's time per job (D742): when the second of two DMA
/// instructions issued at the generator's cadence (within twice the issue floor) lasts longer
/// than the first, it waited for the first's job, and job = gap + (second - first) duration;
/// the median of those, 0 for an engine with none.
fn dge_jobs(pairs: &[(EngineType, f64, f64, f64)], interval: f64) -> [f64; EngineType::COUNT] {
    let mut out = [0.0; EngineType::COUNT];
    for e in EngineType::ALL {
        let jobs: Vec<f64> = (pairs.iter())
            .filter(|p| p.0 == e && p.1 < 2.0 * interval && p.3 - p.2 > DGE_GROWTH_NS)
            .map(|p| p.1 + p.3 - p.2)
            .collect();
        if !jobs.is_empty() {
            out[e.index()] = round4(median(jobs));
        }
    }
    out
}

/// `v` to four decimals: the table's printed precision, so a fitted table and its source agree.
pub(crate) fn round4(v: f64) -> f64 {
    (v * 1e4).round() / 1e4
}

/// The generated part of `table.rs` for `t` (below its marker): what `scripts/fit_costs.sh`
/// writes. `notes` are the DMA fit's sample counts and residuals, written beside its constants.
pub fn source(t: &CostTable, notes: &FitNotes) -> String {
    use std::fmt::Write;
    let f = |v: f64| {
        let s = format!("{v:.4}");
        let s = s.trim_end_matches('0');
        if s.ends_with('.') {
            format!("{s}0")
        } else {
            s.to_string()
        }
    };
    let lin = |l: Linear| format!("lin({}, {})", f(l.base_ns), f(l.per_unit_ns));
    let mut s = String::new();
    let _ = writeln!(
        s,
        "/// Per (engine, class): `[dispatch, latency, occupancy]`,"
    );
    let _ = writeln!(s, "/// (samples, in-sample median latency residual %).");
    let _ = writeln!(s, "pub static FITTED_ROWS: &[ClassRow] = &[");
    for r in &t.rows {
        let _ = writeln!(
            s,
            "    row(E::{:?}, C::{:?}, [{}, {}, {}], ({}, {})),",
            r.engine,
            r.class,
            lin(r.cost.dispatch),
            lin(r.cost.latency),
            lin(r.cost.occupancy),
            r.samples,
            f(r.residual_pct)
        );
    }
    let _ = writeln!(s, "];");
    let d = &t.dma;
    let _ = writeln!(s, "\n/// DMA ({}).", notes.dma);
    let _ = writeln!(
        s,
        "pub const FITTED_DMA: DmaCost = DmaCost {{\n    latency_ns: {},\n    descriptor_ns: {},\n    ns_per_byte: {},\n    engines: {},\n    max_descriptor_bytes: {},\n    fabric_descriptor_ns: {},\n    fabric_run_ns: {},\n    fabric_small_run_ns: {},\n    small_run_bytes: {},\n    fabric_ns_per_byte: {},\n    dge_interval_ns: {},\n    dge_job_ns: {:?},\n}};",
        f(d.latency_ns),
        f(d.descriptor_ns),
        f(d.ns_per_byte),
        d.engines,
        d.max_descriptor_bytes,
        f(d.fabric_descriptor_ns),
        f(d.fabric_run_ns),
        f(d.fabric_small_run_ns),
        d.small_run_bytes,
        f(d.fabric_ns_per_byte),
        f(d.dge_interval_ns),
        d.dge_job_ns
    );
    let p = &t.pe_throttle;
    let _ = writeln!(
        s,
        "\n/// The PE throttle.\npub const FITTED_THROTTLE: Throttle = Throttle {{\n    factor: {},\n    warm_ns: {},\n    idle_reset_ns: {},\n}};",
        f(p.factor),
        f(p.warm_ns),
        f(p.idle_reset_ns)
    );
    let _ = writeln!(
        s,
        "\n/// The MATMUL floor, stationary columns a pass (D812; {}).\npub const FITTED_MATMUL_FLOOR_COLUMNS: f64 = {};",
        notes.matmul_floor,
        f(t.matmul_floor_columns)
    );
    let _ = writeln!(
        s,
        "\n/// The MATMUL drain, ns per moving column (D813; {}).\npub const FITTED_MATMUL_DRAIN_NS_PER_COLUMN: f64 = {};",
        notes.matmul_drain,
        f(t.matmul_drain_ns_per_column)
    );
    let _ = writeln!(
        s,
        "\n/// A MATMUL on an idle array, extra ns (D815; {}).\npub const FITTED_MATMUL_IDLE_NS: f64 = {};",
        notes.matmul_idle,
        f(t.matmul_idle_ns)
    );
    let c = &t.clocks;
    let _ = writeln!(
        s,
        "\n/// The clocks the constants were measured at.\npub const FITTED_CLOCKS: Clocks = Clocks {{\n    pe_ghz: {},\n    engines_ghz: {},\n}};",
        f(c.pe_ghz),
        f(c.engines_ghz)
    );
    s
}

/// The profiles of the run of `neff` that lie beside it, in the order a fit prefers them: the
/// raw capture (`NAME.ntff.gz`, `NAME.ntff`: every instruction and transfer), then the report
/// made from it (`NAME.profile.json.gz`, `NAME.profile.json`). A report and the capture it was
/// made from are one run: a fit reads the first of them that reads, never both.
pub fn profiles_beside(neff: &std::path::Path) -> Vec<std::path::PathBuf> {
    let stem = neff.with_extension("");
    ["ntff.gz", "ntff", "profile.json.gz", "profile.json"]
        .iter()
        .map(|ext| stem.with_extension(ext))
        .filter(|p| p.is_file())
        .collect()
}

/// The options every fit figure simulates an observation with: sg00 alone under `table`;
/// `record` keeps the per-instruction slices (without their disassembly) for a comparison with
/// the capture's instructions.
pub fn sg00_options(table: &CostTable, record: bool) -> SimOptions {
    SimOptions {
        cost: super::CostModel {
            table: table.clone(),
            ..super::CostModel::default()
        },
        record,
        slice_text: false,
        subgraphs: vec!["sg00".into()],
        ..SimOptions::default()
    }
}

/// The sg00 span error of `o` simulated with `table`, percent of the measured span: the
/// figure the goals are stated in (`None` when the profile has no sg00 instruction or
/// the run fails).
pub fn span_error(o: &Observation<'_>, table: &CostTable) -> Option<f64> {
    let measured = o.profile.span_ns("sg00")? as f64;
    let r = crate::simulate(o.model, &sg00_options(table, false)).ok()?;
    let predicted = r.subgraphs.first()?.span_ns as f64;
    (measured > 0.0).then(|| 100.0 * (predicted - measured) / measured)
}

/// Leave-one-out: for each observation, the table fitted on all the others (what predicts it
/// as a kernel never measured).
pub fn leave_one_out(observations: &[Observation<'_>], prior: &CostTable) -> Vec<CostTable> {
    (0..observations.len())
        .map(|i| {
            let rest: Vec<Observation<'_>> = (observations.iter().enumerate())
                .filter(|&(k, _)| k != i)
                .map(|(_, o)| *o)
                .collect();
            fit(&rest, prior)
        })
        .collect()
}
