//! What a simulation is asked to do.

use crate::cost::CostModel;

/// The default step bound: instructions executed per subgraph before the run is declared a
/// runaway (at the simulator's measured rate, a few seconds).
pub const DEFAULT_MAX_STEPS: u64 = 50_000_000;

/// Options of [`crate::simulate`].
#[derive(Debug, Clone, PartialEq)]
pub struct SimOptions {
    /// Instructions executed per subgraph before the run stops with
    /// [`crate::SimError::StepBound`].
    pub max_steps: u64,
    /// Keep every issued instruction, transfer and semaphore change (the timeline: the trace,
    /// the critical path, the comparison with a profile). Off, only the totals are kept and the
    /// run allocates nothing per instruction.
    pub record: bool,
    /// With `record`, give every timeline slice its disassembly text ([`crate::Slice::text`]):
    /// only the trace and the report's timeline show it, and it is most of what recording costs
    /// per instruction (D367). Off, the slices' text is empty; nothing else changes.
    pub slice_text: bool,
    /// With `record`, build the [`crate::Timeline`] of each subgraph (one [`crate::Slice`] per
    /// issued instruction, 56 bytes each: 9.9 MB for the 176 k-slot real-shaped NEFF). The
    /// totals, the classes and the critical path read the records, not the timeline, so a
    /// caller that shows none of the timeline (`neff sim` without `--trace`, `--compare` or
    /// `--by-source`) turns it off and keeps everything else (D760).
    pub timeline: bool,
    /// The cost model.
    pub cost: CostModel,
    /// Only these subgraphs (all when empty).
    pub subgraphs: Vec<String>,
}

impl Default for SimOptions {
    fn default() -> Self {
        Self {
            max_steps: DEFAULT_MAX_STEPS,
            record: false,
            slice_text: true,
            timeline: true,
            cost: CostModel::default(),
            subgraphs: Vec::new(),
        }
    }
}
