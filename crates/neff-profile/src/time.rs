//! Device time to the vendor's nanoseconds (reference-ntff §5, decisions D402, D403).

use crate::capture::{CaptureFacts, FormatVersion};

/// Where a capture's time origin comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeOrigin {
    /// The execution window's T0 (v6, field 15.2): the vendor's own origin (exact).
    Window,
    /// No window (v4, v5): the earliest instruction record of the capture, neffkit's choice
    /// (D402); the vendor's origin for these versions is not known.
    FirstInstruction,
}

/// A capture's time base.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeBase {
    /// The origin, device ps.
    pub origin_ps: u64,
    /// The window's end T1, when there is one.
    pub end_ps: Option<u64>,
    /// Where the origin comes from.
    pub origin: TimeOrigin,
    /// The clock that counts an instruction's event-wait cycles, GHz (D402).
    pub wait_clock_ghz: f32,
    /// Whether DMA and throttle records share the engines' clock (false on trn1: D403).
    pub dma_aligned: bool,
}

/// The wait-cycle clock of trn2 (reference §3: the vendor's `evt_wait_time` is cycles / 1.2).
pub const TRN2_WAIT_GHZ: f32 = 1.2;
/// The engine clock of trn1 (reference §5).
pub const TRN1_ENGINE_GHZ: f32 = 1.4;

impl TimeBase {
    /// The time base of a capture whose earliest instruction record is at `first_ps`.
    pub fn of(facts: &CaptureFacts, first_ps: Option<u64>) -> Self {
        let trn1 = facts.format.is_trn1();
        let (origin_ps, end_ps, origin) = match &facts.window {
            Some(w) => (w.t0_ps, Some(w.t1_ps), TimeOrigin::Window),
            None => (first_ps.unwrap_or(0), None, TimeOrigin::FirstInstruction),
        };
        Self {
            origin_ps,
            end_ps,
            origin,
            wait_clock_ghz: if trn1 { TRN1_ENGINE_GHZ } else { TRN2_WAIT_GHZ },
            dma_aligned: facts.format != FormatVersion(4),
        }
    }

    /// The vendor's `timestamp` of device time `ps`: floor((ps - T0) / 1000).
    #[inline]
    pub fn ns(&self, ps: u64) -> u64 {
        ps.saturating_sub(self.origin_ps) / 1000
    }

    /// The vendor's `duration`: floor((end - start) / 1000) on the raw ps (reference §5, exact).
    #[inline]
    pub fn duration_ns(start_ps: u64, end_ps: u64) -> u64 {
        end_ps.saturating_sub(start_ps) / 1000
    }

    /// Whether the vendor keeps an event from `start` to `end`: start >= T0 and end <= T1.
    #[inline]
    pub fn keeps(&self, start_ps: u64, end_ps: u64) -> bool {
        start_ps >= self.origin_ps && self.end_ps.is_none_or(|t1| end_ps <= t1)
    }

    /// The vendor's `evt_wait_time` of `cycles`: cycles over the clock in f32, truncated
    /// (D402: every row of the four pairs but six of fused_attention, where the vendor is 1 ns
    /// lower; f64 division fixes those six and breaks hundreds of others).
    #[inline]
    pub fn wait_ns(&self, cycles: u16) -> u64 {
        (f32::from(cycles) / self.wait_clock_ghz) as u64
    }
}
