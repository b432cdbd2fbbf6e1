//! One engine's loaded stream as a capture holds it (reference-ntff §4): its bytes and the
//! runtime's segment list, the input of learning (decision D463) and comparison (D466).

use std::ops::Range;

use neff_isa::{EngineType, SLOT_BYTES};

/// One runtime-written segment of a captured stream (reference-ntff §2, field 5.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CapturedSegment {
    /// The first slot.
    pub first_slot: usize,
    /// Slots.
    pub count: usize,
    /// Flag 2: a runtime slot inside the NEFF's program (reference-ntff §4).
    pub inner: bool,
}

impl CapturedSegment {
    /// The segment's slots.
    pub fn slots(&self) -> Range<usize> {
        self.first_slot..self.first_slot.saturating_add(self.count)
    }
}

/// One engine's loaded stream as a capture holds it: what learning and comparison read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapturedStream<'a> {
    /// The engine.
    pub engine: EngineType,
    /// Device address of the stream's slot 0.
    pub device_base: u64,
    /// The physical core the stream ran on (capture field 4.4.1.3), when the capture names one
    /// the device has: its regions' core words are in that core's windows (decision D816).
    pub core: Option<crate::physical_core::PhysicalCore>,
    /// The stream's bytes.
    pub bytes: &'a [u8],
    /// The runtime's segments, in capture order.
    pub segments: Vec<CapturedSegment>,
}

impl CapturedStream<'_> {
    /// Whole slots in the stream.
    pub fn slot_count(&self) -> usize {
        self.bytes.len() / SLOT_BYTES
    }

    /// Slot `i`'s bytes.
    pub fn slot(&self, i: usize) -> Option<&[u8]> {
        self.bytes.get(i * SLOT_BYTES..(i + 1) * SLOT_BYTES)
    }

    /// The PREAMBLE: the runtime segments that start the stream, one after the other (decision
    /// D840: one segment under runtime 2.30.51; a runtime that writes its start block as a
    /// segment of its own has it joined), never the last segment.
    pub fn preamble(&self) -> Option<Range<usize>> {
        let s = self.segments.first()?;
        if s.first_slot != 0 || s.inner {
            return None;
        }
        let mut end = s.slots().end;
        // The last segment is the POSTAMBLE's, even right after the PREAMBLE (an empty program).
        let inside = &self.segments[..self.segments.len() - 1];
        while let Some(next) = inside
            .iter()
            .find(|g| !g.inner && g.count > 0 && g.first_slot == end)
        {
            end = next.slots().end;
        }
        Some(0..end)
    }

    /// The POSTAMBLE: the last segment, when it is a runtime one past the PREAMBLE inside the
    /// stream (the seven shared captures have no FUNCTION section behind it).
    pub fn postamble(&self) -> Option<Range<usize>> {
        let s = self.segments.last()?;
        let pre = self.preamble()?;
        let r = s.slots();
        (!s.inner && r.start >= pre.end && r.end <= self.slot_count() && self.segments.len() > 1)
            .then_some(r)
    }

    /// Whether slot `i` is one the runtime wrote (a segment's, not a flag-2 one).
    pub fn is_runtime_slot(&self, i: usize) -> bool {
        self.segments
            .iter()
            .any(|s| !s.inner && s.slots().contains(&i))
    }
}
