//! A capture's loaded streams as the runtime model's input (decision D463): what `--like`
//! (learning a runtime version's regions) and `--compare` (slot by slot) read. neff-profile reads
//! the capture; this only restates its streams in slots.

use neff_isa::SLOT_SHIFT;
use neff_profile::stream::{INNER_SEGMENT_FLAG, LoadedStream};
use neff_profile::{Capture, SubgraphFacts};

use super::RuntimeContent;
use super::learned::{LearnError, LearnedRuntime};
use super::stream::{CapturedSegment, CapturedStream};
use crate::physical_core::PhysicalCore;

/// One loaded stream of `cap`, run on physical core `core`, as a [`CapturedStream`]: its bytes
/// and its runtime segments in slots.
pub fn captured_stream<'a>(cap: &Capture<'a>, s: &LoadedStream, core: u64) -> CapturedStream<'a> {
    CapturedStream {
        engine: s.engine,
        device_base: s.device_base,
        core: PhysicalCore::new(core),
        bytes: cap.stream_bytes(s),
        segments: s
            .segments
            .iter()
            .map(|g| CapturedSegment {
                first_slot: usize::try_from(g.offset >> SLOT_SHIFT).unwrap_or(usize::MAX),
                count: usize::try_from(g.count).unwrap_or(usize::MAX),
                inner: g.flag == INNER_SEGMENT_FLAG,
            })
            .collect(),
    }
}

/// Every loaded stream of one subgraph of `cap`, in capture order.
pub fn captured_streams<'a>(cap: &Capture<'a>, sg: &SubgraphFacts) -> Vec<CapturedStream<'a>> {
    sg.streams
        .iter()
        .map(|s| captured_stream(cap, s, sg.core))
        .collect()
}

/// Learns the runtime of `cap` (decision D463): every captured stream's regions, keyed by the
/// content of the subgraph of the NEFF it ran (`kbins`, by name). The one recipe `--like` and
/// the cost fit (which times the images the hardware ran) share. Records the pseudo-instructions
/// the NEFF uses (decision D845).
pub fn learn_capture(
    cap: &Capture<'_>,
    kbins: &[neff_kelf::Kbin<'_>],
) -> Result<LearnedRuntime, LearnError> {
    let version = cap
        .facts
        .runtime
        .as_ref()
        .map_or_else(|| "unknown".to_owned(), ToString::to_string);
    let mut subgraphs = Vec::new();
    for sg in &cap.facts.subgraphs {
        let Some(k) = kbins.iter().find(|k| k.name == sg.name) else {
            return Err(LearnError::NoSubgraph {
                subgraph: sg.name.clone(),
            });
        };
        subgraphs.push((
            sg.name.clone(),
            RuntimeContent::from_kbin(k),
            captured_streams(cap, sg),
        ));
    }
    let taught = super::taught_forms::pseudo_opcodes(
        kbins.iter().flat_map(|k| k.engines.iter().map(|e| e.instr)),
    );
    Ok(LearnedRuntime {
        taught_pseudos: Some(taught),
        ..LearnedRuntime::learn(version, subgraphs)?
    })
}
