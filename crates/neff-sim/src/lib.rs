//! Simulates a loaded NEFF on a model of the NeuronCore (docs/performance.md "neff sim").
//!
//! Every engine of a subgraph executes its loaded image — PREAMBLE, MAIN, POSTAMBLE, as the
//! device model the load used built them — in order: an instruction issues when its engine is
//! ready and its wait holds (semaphores and events, every wait mode of neff-isa); its updates
//! apply at issue or at completion as its update mode says; tail-pointer WRITEs start transfers
//! on their DMA queue's ring, which raise the queue's semaphore when done (spec 003 §4-§5);
//! collective doorbells complete as a single rank; registers and ALU ops are executed, so
//! compare-branches and loops take the path the hardware takes. Time comes from a cost model
//! fitted on real hardware profiles ([`cost`]). A program that can no longer move is a
//! [`Deadlock`], reported with its wait cycle.
//!
//! # Example
//!
//! ```
//! # let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/sample.neff")).unwrap();
//! let neff = neff_container::Neff::parse(&bytes)?;
//! let kelf = neff_kelf::Kelf::from_neff(&neff)?;
//! let model = neff_load::model::load(&kelf, &Default::default())?;
//! let result = neff_sim::simulate(&model, &neff_sim::SimOptions::default())?;
//! assert!(result.deadlock.is_none());
//! assert!(result.subgraphs[0].span_ns > 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod cost;
mod deadlock;
#[cfg(feature = "stages")]
pub mod decode;
#[cfg(not(feature = "stages"))]
#[allow(unreachable_pub, dead_code)] // public under `stages` (D561)
mod decode;
mod dma;
pub mod engine_name;
mod error;
pub mod func;
mod glue_ops;
mod kept;
mod machine;
#[cfg(feature = "stages")]
pub mod op;
#[cfg(not(feature = "stages"))]
#[allow(unreachable_pub, dead_code)] // public under `stages` (D561)
mod op;
mod options;
#[cfg(feature = "stages")]
pub mod packed;
#[cfg(not(feature = "stages"))]
#[allow(unreachable_pub, dead_code)] // public under `stages` (D561)
mod packed;
#[cfg(feature = "stages")]
pub mod price;
#[cfg(not(feature = "stages"))]
#[allow(unreachable_pub, dead_code)] // public under `stages` (D561)
mod price;
#[cfg_attr(not(feature = "stages"), allow(unreachable_pub))] // reachable under `stages`
mod registers;
mod result;
mod runtime_ops;
mod slot_runs;
mod summary;
#[cfg_attr(not(feature = "stages"), allow(unreachable_pub))] // reachable under `stages`
mod sync_state;
pub mod time;
#[cfg_attr(not(feature = "stages"), allow(unreachable_pub))] // reachable under `stages`
mod update;
#[cfg(feature = "stages")]
pub mod wait;
#[cfg(not(feature = "stages"))]
#[allow(unreachable_pub, dead_code)] // public under `stages` (D561)
mod wait;
mod warning;

pub use deadlock::{BlockedEngine, Deadlock, WaitFor, cycle_text};
pub use error::SimError;
pub use glue_ops::GlueOps;
pub use kept::KeptSlots;
pub use op::Region;
pub use options::{DEFAULT_MAX_STEPS, SimOptions};
pub use result::{
    ClassResult, CriticalStep, EngineResult, QueueResult, SemaphoreSample, SimResult, Slice,
    SubgraphResult, Timeline, TransferRecord,
};
pub use slot_runs::SlotRuns;
pub use warning::SimWarning;

use neff_load::model::{LoadedModel, LoadedSubgraph};
use neff_lower::ImageBuf;
use rayon::prelude::*;

use crate::decode::{
    DecodeContext, EngineProgram, Keep, WriteTargets, decode_engine, decode_engine_view,
};
use crate::machine::Machine;

/// Simulates every subgraph of `model` (or those `options.subgraphs` names), each on its own
/// core from time 0.
pub fn simulate(model: &LoadedModel, options: &SimOptions) -> Result<SimResult, SimError> {
    let mut out = SimResult {
        subgraphs: Vec::new(),
        deadlock: None,
        warnings: Vec::new(),
    };
    for sg in &model.subgraphs {
        if !options.subgraphs.is_empty() && !options.subgraphs.contains(&sg.name) {
            continue;
        }
        let programs = compile_images(model, sg, options)?;
        run_subgraph(sg, &programs, options, &mut out)?;
    }
    Ok(out)
}

/// The programs of a model's subgraphs, compiled from the images a viewing load handed over
/// ([`compile_views`]), to run once those images and the package they borrow are freed (D834).
#[derive(Debug)]
pub struct CompiledModel {
    /// Per subgraph of the model (`None`: left out by `options.subgraphs`), its programs or the
    /// error decoding them (reported when the run reaches that subgraph, as [`simulate`] does).
    subgraphs: Vec<Option<Result<Vec<EngineProgram>, SimError>>>,
}

/// Compiles every subgraph of `model` that `options.subgraphs` selects from `views`, per
/// subgraph the images of its engines in [`LoadedSubgraph::engines`] order, as
/// [`neff_load::model::load_kbins_viewing`] returns them. The programs are [`simulate`]'s, and
/// each keeps the records its deadlock report may show ([`KeptSlots`]: those of the ops with a
/// wait; every record with `options.slice_text`, whose slices show them all), so the views can
/// be dropped before [`simulate_compiled`]: on the real-shaped conv2d the package (15 MB) is then
/// freed before the run, not held beside its records (D834). An engine without a view decodes
/// its own bytes.
pub fn compile_views(
    model: &LoadedModel,
    views: &[Vec<ImageBuf<'_>>],
    options: &SimOptions,
) -> CompiledModel {
    let subgraphs = (model.subgraphs.iter().enumerate())
        .map(|(si, sg)| {
            let wanted = options.subgraphs.is_empty() || options.subgraphs.contains(&sg.name);
            wanted.then(|| {
                let views = views.get(si).map_or(&[][..], Vec::as_slice);
                compile_subgraph(model, sg, options, views)
            })
        })
        .collect();
    CompiledModel { subgraphs }
}

/// [`simulate`] of programs [`compile_views`] compiled for `model` with the same `options`: the
/// same result, the first error in subgraph order included.
pub fn simulate_compiled(
    model: &LoadedModel,
    compiled: &CompiledModel,
    options: &SimOptions,
) -> Result<SimResult, SimError> {
    let mut out = SimResult {
        subgraphs: Vec::new(),
        deadlock: None,
        warnings: Vec::new(),
    };
    for (sg, programs) in model.subgraphs.iter().zip(&compiled.subgraphs) {
        let Some(programs) = programs else { continue };
        let programs = programs.as_ref().map_err(Clone::clone)?;
        run_subgraph(sg, programs, options, &mut out)?;
    }
    Ok(out)
}

/// Runs one subgraph's programs on a fresh core and adds its summary, warnings and deadlock (the
/// first one only) to `out`.
fn run_subgraph(
    sg: &LoadedSubgraph,
    programs: &[EngineProgram],
    options: &SimOptions,
    out: &mut SimResult,
) -> Result<(), SimError> {
    let mut m = Machine::new(
        sg,
        programs,
        &options.cost,
        options.max_steps,
        options.record,
    );
    m.run()?;
    let last = m.engines.iter().map(|r| r.last_complete).max().unwrap_or(0);
    let dl = deadlock::report(&m, time::ns(last));
    if dl.is_none() {
        out.warnings.extend(warnings(&m));
    }
    out.subgraphs.push(summary::summarize(
        &m,
        dl.is_some(),
        options.timeline,
        options.slice_text,
    ));
    if out.deadlock.is_none() {
        out.deadlock = dl;
    }
    Ok(())
}

/// Compiles every engine image of `sg` into the programs the machine runs (feature `stages`:
/// a benchmark times decoding apart from the run; decision D561).
#[cfg(feature = "stages")]
pub fn compile(
    model: &LoadedModel,
    sg: &LoadedSubgraph,
    options: &SimOptions,
) -> Result<Vec<EngineProgram>, SimError> {
    compile_images(model, sg, options)
}

/// Compiles every engine image of `sg`, the engines in parallel (each image decodes on its own;
/// D364).
pub(crate) fn compile_images(
    model: &LoadedModel,
    sg: &LoadedSubgraph,
    options: &SimOptions,
) -> Result<Vec<EngineProgram>, SimError> {
    with_decode_context(model, sg, options, |cx| {
        // Collected in engine order, then the first error in that order: the same answer as a
        // sequential decode.
        let programs: Vec<Result<EngineProgram, SimError>> = sg
            .engines
            .par_iter()
            .map(|e| decode_engine(cx, e))
            .collect();
        programs.into_iter().collect()
    })
}

/// `f` with the decode context of `sg`: its write targets, resources and the cost model.
fn with_decode_context<T>(
    model: &LoadedModel,
    sg: &LoadedSubgraph,
    options: &SimOptions,
    f: impl FnOnce(&DecodeContext<'_>) -> T,
) -> T {
    // The subgraph's place in the model: its physical core (D816). By name, unique in a kelf.
    let index = model.subgraphs.iter().position(|s| s.name == sg.name);
    let core = index.and_then(|i| model.device.core_of(i));
    let targets = WriteTargets::new(&model.device, &sg.resources, core);
    f(&DecodeContext {
        subgraph: &sg.name,
        targets: &targets,
        resources: &sg.resources,
        cost: &options.cost,
    })
}

/// [`compile_images`] from `views` (one per engine, in engine order; an engine without one
/// decodes its own bytes).
fn compile_subgraph(
    model: &LoadedModel,
    sg: &LoadedSubgraph,
    options: &SimOptions,
    views: &[ImageBuf<'_>],
) -> Result<Vec<EngineProgram>, SimError> {
    // One engine after the other, on the caller's thread (D834): decoded by the rayon workers,
    // the programs were allocated in their arenas, beside the memory the load freed in the main
    // one, 4.8 MB more resident at `neff sim`'s peak on the real-shaped conv2d (RssAnon after
    // compiling, 25.75 -> 21.54 MB); its PE image is 161,000 of 176,000 slots, so the parallel
    // decode saved little time. Engines decode independently: the order changes no program.
    let keep = if options.slice_text {
        Keep::All
    } else {
        Keep::Waits
    };
    with_decode_context(model, sg, options, |cx| {
        let programs: Vec<Result<EngineProgram, SimError>> = (sg.engines.iter().enumerate())
            .map(|(i, e)| match views.get(i) {
                Some(v) => decode_engine_view(cx, e, v, keep),
                None => decode_engine(cx, e),
            })
            .collect();
        programs.into_iter().collect()
    })
}

/// Transfers that finished after every engine was done (nothing waited for them), and
/// semaphores the program touched that did not return to their value at the start.
fn warnings(m: &Machine<'_>) -> Vec<SimWarning> {
    let subgraph = &m.subgraph.name;
    let done = m.engines.iter().map(|r| r.done_at).max().unwrap_or(0);
    let mut out = Vec::new();
    let count = m.transfers.iter().filter(|t| t.end > done).count();
    if count > 0 {
        out.push(SimWarning::PendingTransfers {
            subgraph: subgraph.clone(),
            count,
        });
    }
    let semaphores: Vec<(usize, i64, i64)> = (0..sync_state::SYNC_SLOTS)
        .filter(|&i| m.touched[i] && m.sync.sems[i] != m.initial.sems[i])
        .map(|i| (i, m.sync.sems[i], m.initial.sems[i]))
        .collect();
    if !semaphores.is_empty() {
        out.push(SimWarning::SemaphoresNotRestored {
            subgraph: subgraph.clone(),
            semaphores,
        });
    }
    out
}
