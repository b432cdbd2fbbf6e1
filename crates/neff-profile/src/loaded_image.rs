//! A capture's loaded streams handed to neff-load's runtime model (decision D463): the input of
//! `--like` (learning a runtime version's regions) and `--compare` (slot by slot). The reader
//! stays here; neff-load sees plain [`CapturedStream`]s.

use neff_isa::SLOT_SHIFT;
use neff_load::runtime_model::{CapturedSegment, CapturedStream};

use crate::capture::SubgraphFacts;
use crate::ntff::Capture;
use crate::stream::{INNER_SEGMENT_FLAG, LoadedStream};

impl<'a> Capture<'a> {
    /// One loaded stream as neff-load's [`CapturedStream`]: its bytes and its runtime segments
    /// in slots.
    pub fn captured_stream(&self, s: &LoadedStream) -> CapturedStream<'a> {
        CapturedStream {
            engine: s.engine,
            device_base: s.device_base,
            bytes: self.stream_bytes(s),
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

    /// Every loaded stream of one subgraph, in capture order.
    pub fn captured_streams(&self, sg: &SubgraphFacts) -> Vec<CapturedStream<'a>> {
        sg.streams.iter().map(|s| self.captured_stream(s)).collect()
    }
}
