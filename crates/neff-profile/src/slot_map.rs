//! Device pc -> NEFF slot from the capture itself (reference-ntff §4; decision D406): the slots
//! of a loaded stream that no runtime segment covers, with the flag-2 segments inside them, are
//! the NEFF's program as the runtime lowered it. A flag-2 segment stands for one NEFF slot more
//! than it holds (the runtime folded two NEFF slots into its one slot; the profiler names the
//! later), measured on every profiled instruction of the four shared pairs (runtime 2.30.51).

use crate::stream::{INNER_SEGMENT_FLAG, LoadedStream};

/// The 0-based NEFF slot at stream slot `pc` (`None` for a runtime-written slot or a pc past
/// the stream). Past a pseudo-instruction the runtime expands or deletes elsewhere, the count
/// drifts (reference §4): [`crate::summary`] users with the NEFF at hand should prefer the
/// lowering's patch rows.
pub fn neff_slot(stream: &LoadedStream, pc: u64) -> Option<u64> {
    if pc >= stream.slot_count() || stream.is_runtime_slot(pc) {
        return None;
    }
    let mut slot = pc;
    for s in &stream.segments {
        let r = s.slots();
        if s.flag == INNER_SEGMENT_FLAG {
            if r.start <= pc {
                slot += 1;
            }
        } else {
            slot = slot.saturating_sub(r.end.min(pc).saturating_sub(r.start));
        }
    }
    Some(slot)
}
