//! Reduction enums: the reduce axis of TENSOR_REDUCE (`dim=X`, decision D134) and the accumulator
//! command of ACTIVATE (`accumulator_cmd=IDLE`, decision D133; the values are KLR's
//! `reduce_cmd` constants, reference §5.3).

use crate::field_enum::field_enum;

field_enum! {
    /// The reduce axis (+0x25 of TENSOR_REDUCE_ARITH_OP). Only X = 2 is pinned by the profiles;
    /// other values print in hex (the corpus also holds 3, reference-compute-bytes).
    ReduceDim / REDUCE_DIM {
        /// The innermost free axis (profile `dim=X`).
        X = 2 => "X",
    }
}

field_enum! {
    /// The accumulator command (KLR `reduce_cmd`: idle 0, reset 1, reduce 2, reset_reduce 3).
    AccCmd / ACC_CMD {
        /// No accumulation (profile `accumulator_cmd=IDLE`).
        Idle = 0 => "IDLE",
        /// Reset the accumulator.
        Reset = 1 => "RESET",
        /// Accumulate.
        Reduce = 2 => "REDUCE",
        /// Reset, then accumulate.
        ResetReduce = 3 => "RESET_REDUCE",
    }
}

field_enum! {
    /// SET_ORDERING_MODE's mode (+0x0C, decision D137): every real slot is 0, which the profiler
    /// prints `ordering_mode=relaxed`.
    OrderingMode / ORDERING_MODE {
        /// Relaxed ordering.
        Relaxed = 0 => "relaxed",
    }
}
