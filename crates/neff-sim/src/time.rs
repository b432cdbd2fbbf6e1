//! Simulated time. Internally picoseconds in a `u64` (costs fitted in fractions of a
//! nanosecond add up without rounding drift; 2^64 ps is 213 days); reported in nanoseconds.

/// A point or a length of simulated time, in picoseconds.
pub(crate) type Ps = u64;

/// Picoseconds per nanosecond.
pub(crate) const PS_PER_NS: u64 = 1000;

/// `ns` nanoseconds (fractional; negative and non-finite become 0) as picoseconds.
pub(crate) fn ps_from_ns(ns: f64) -> Ps {
    if ns.is_finite() && ns > 0.0 {
        (ns * PS_PER_NS as f64).round() as Ps
    } else {
        0
    }
}

/// Picoseconds as nanoseconds, rounded to the nearest.
pub(crate) fn ns(ps: Ps) -> u64 {
    (ps + PS_PER_NS / 2) / PS_PER_NS
}

/// Picoseconds as fractional nanoseconds.
pub(crate) fn ns_f64(ps: Ps) -> f64 {
    ps as f64 / PS_PER_NS as f64
}
