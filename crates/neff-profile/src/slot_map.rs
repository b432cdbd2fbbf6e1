//! Device pc -> NEFF slot from the capture itself (reference-ntff §4): the slots of a loaded
//! stream that no runtime segment covers are the NEFF's program as the runtime lowered it.

use crate::stream::LoadedStream;

/// The 0-based NEFF slot at stream slot `pc`, counting the NEFF-program positions before it
/// (`None` for a runtime-written slot or a pc past the stream). Exact up to the first
/// expansion or deletion of a pseudo-instruction (reference §4); decision D406 says how it is
/// checked.
pub fn neff_slot(stream: &LoadedStream, pc: u64) -> Option<u64> {
    if pc >= stream.slot_count() || stream.is_runtime_slot(pc) {
        return None;
    }
    let before: u64 = stream
        .segments
        .iter()
        .filter(|s| s.flag != crate::stream::INNER_SEGMENT_FLAG)
        .map(|s| {
            let r = s.slots();
            r.end.min(pc).saturating_sub(r.start)
        })
        .sum();
    Some(pc - before)
}
