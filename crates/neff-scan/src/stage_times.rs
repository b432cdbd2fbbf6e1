//! Where a scan's time goes: the wall time of each stage of one file (docs/scale.md), taken
//! by [`crate::scan_bytes_timed`] on the same code path as every scan.

use std::ops::AddAssign;
use std::time::{Duration, Instant};

/// Time per stage of one file's scan (zero for a stage not reached).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StageTimes {
    /// SHA-256 of the whole file.
    pub sha256: Duration,
    /// Header, hash check, inflate and tar index (neff-container).
    pub package: Duration,
    /// Manifests and kbins (neff-kelf).
    pub kelf: Duration,
    /// Instruction counts, opcode histogram, DMA sums.
    pub counts: Duration,
    /// The runtime's load (neff-load).
    pub load: Duration,
    /// The simulation (neff-sim).
    pub sim: Duration,
}

impl StageTimes {
    /// The stages with their names, in pipeline order.
    pub fn named(&self) -> [(&'static str, Duration); 6] {
        [
            ("sha256", self.sha256),
            ("package", self.package),
            ("kelf", self.kelf),
            ("counts", self.counts),
            ("load", self.load),
            ("sim", self.sim),
        ]
    }

    /// The sum over the stages.
    pub fn total(&self) -> Duration {
        self.named().iter().map(|(_, d)| *d).sum()
    }
}

impl AddAssign for StageTimes {
    fn add_assign(&mut self, o: Self) {
        self.sha256 += o.sha256;
        self.package += o.package;
        self.kelf += o.kelf;
        self.counts += o.counts;
        self.load += o.load;
        self.sim += o.sim;
    }
}

/// Runs `f` and adds its wall time to `slot`.
pub(crate) fn timed<T>(slot: &mut Duration, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    *slot += start.elapsed();
    out
}
