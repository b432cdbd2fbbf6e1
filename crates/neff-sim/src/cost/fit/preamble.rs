//! The runtime preamble's own costs (decision D741): its barrier steps, DRAINs and loads of
//! the runtime's words, fitted on
//! the traced PREAMBLE instructions of every capture. A fit loads each NEFF like the runtime
//! that ran it, whose PREAMBLE slots are the runtime's bytes but opaque to the simulator
//! (D463); the plain runtime model (D171-D174) says what each traced slot does, so each
//! profiled PREAMBLE instruction is paired with that model's op at its pc when their mnemonics
//! agree, and timed from its release ([`super::release`]).
//!
//! Evidence (baseline_attention sg00, the capture): a barrier step is stamped when the engine
//! reaches it, before its turn comes (Pool's `$S[2]==6` at 9479 ns, `$S[2]` reaching 6 at
//! 9599 ns, the step ending at 9629 ns), so the gap to the next instruction counts from the
//! step's release whatever the next waits for; the step's own cost is release to end (24-54 ns
//! in the last round: the chain's hop); the DRAIN after the last round issues 67-112 ns after
//! the release and MAIN 74-115 ns after the DRAIN.

use neff_isa::EngineType;
use neff_load::model::LoadedSubgraph;
use neff_load::runtime_model::{RuntimeRegions, RuntimeSlot};
use neff_profile::Profile;

use super::Samples;
use super::release::SemRecords;
use crate::cost::CostClass;
use crate::runtime_ops;

/// The runtime classes fitted here; the preamble's other traced slots keep the rows MAIN's
/// instructions of their class give.
fn fitted_here(class: CostClass) -> bool {
    matches!(
        class,
        CostClass::Barrier | CostClass::Drain | CostClass::RuntimeLoad
    )
}

/// Adds the latency and dispatch samples of `sg`'s traced PREAMBLE barrier steps and DRAINs.
pub(super) fn collect(
    sg: &LoadedSubgraph,
    profile: &Profile,
    latency: &mut Samples,
    dispatch: &mut Samples,
) {
    let sems = SemRecords::of(profile, &sg.name);
    for e in EngineType::ALL {
        if sg.engine(e).is_none() {
            continue;
        }
        let regions = RuntimeRegions::new(e, &sg.content);
        let mut seq: Vec<_> = profile.instructions_of(&sg.name, e).collect();
        seq.sort_by_key(|i| (i.timestamp, i.pc));
        for (k, i) in seq.iter().enumerate() {
            let pc = i.pc as usize;
            let Some(RuntimeSlot::Traced(op)) = regions.preamble.get(pc).copied() else {
                continue;
            };
            if op.mnemonic() != i.opcode {
                continue;
            }
            let c = runtime_ops::compile(RuntimeSlot::Traced(op), pc);
            if !fitted_here(c.class) {
                continue;
            }
            let Some(released) = sems.release_of(i, &[c.wait]) else {
                continue;
            };
            let end = i.timestamp + i.duration;
            let key = (e, c.class);
            latency
                .entry(key)
                .or_default()
                .push((c.work, end.saturating_sub(released) as f64));
            if let Some(next) = seq.get(k + 1) {
                let gap = next.timestamp.saturating_sub(released) as f64;
                dispatch.entry(key).or_default().push((c.work, gap));
            }
        }
    }
}
