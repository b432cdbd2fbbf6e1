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
pub use op::Region;
pub use options::{DEFAULT_MAX_STEPS, SimOptions};
pub use result::{
    ClassResult, CriticalStep, EngineResult, QueueResult, SemaphoreSample, SimResult, Slice,
    SubgraphResult, Timeline, TransferRecord,
};
pub use warning::SimWarning;

use neff_load::model::{LoadedModel, LoadedSubgraph};
use rayon::prelude::*;

use crate::decode::{DecodeContext, EngineProgram, WriteTargets, decode_engine};
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
        let mut m = Machine::new(
            sg,
            &programs,
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
    }
    Ok(out)
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
    let targets = WriteTargets::new(&model.device, &sg.resources);
    let cx = DecodeContext {
        subgraph: &sg.name,
        targets: &targets,
        resources: &sg.resources,
        cost: &options.cost,
    };
    // Collected in engine order, then the first error in that order: the same answer as a
    // sequential decode.
    let programs: Vec<Result<EngineProgram, SimError>> = sg
        .engines
        .par_iter()
        .map(|e| decode_engine(&cx, e))
        .collect();
    programs.into_iter().collect()
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
