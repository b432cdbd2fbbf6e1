//! Simulated time. Internally picoseconds in a `u64` (costs fitted in fractions of a
//! nanosecond add up without rounding drift; 2^64 ps is 213 days); reported in nanoseconds.

/// A point or a length of simulated time, in picoseconds.
pub type Ps = u64;

/// Picoseconds per nanosecond.
pub const PS_PER_NS: u64 = 1000;

/// `ns` nanoseconds (fractional; negative and non-finite become 0) as picoseconds.
pub fn ps_from_ns(ns: f64) -> Ps {
    if ns.is_finite() && ns > 0.0 {
        (ns * PS_PER_NS as f64).round() as Ps
    } else {
        0
    }
}

/// Picoseconds as nanoseconds, rounded to the nearest.
pub fn ns(ps: Ps) -> u64 {
    (ps + PS_PER_NS / 2) / PS_PER_NS
}

/// Picoseconds as fractional nanoseconds.
pub fn ns_f64(ps: Ps) -> f64 {
    ps as f64 / PS_PER_NS as f64
}

/// A union of intervals accumulated in start order (issues are in order per engine).
#[derive(Debug, Clone, Copy, Default)]
pub struct Busy {
    start: Ps,
    end: Ps,
    total: Ps,
    any: bool,
}

impl Busy {
    /// Adds `[s, e)`; `s` never precedes an earlier call's `s`.
    #[inline]
    pub fn add(&mut self, s: Ps, e: Ps) {
        if !self.any {
            (self.start, self.end, self.any) = (s, e, true);
        } else if s > self.end {
            self.total += self.end - self.start;
            (self.start, self.end) = (s, e);
        } else if e > self.end {
            self.end = e;
        }
    }

    /// The end of the current interval (0 when empty).
    #[inline]
    pub fn end(&self) -> Ps {
        self.end
    }

    /// The covered length.
    pub fn total(&self) -> Ps {
        self.total + if self.any { self.end - self.start } else { 0 }
    }
}
