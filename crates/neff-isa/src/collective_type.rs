//! The collective type byte of PSEUDO_TRIGGER_COLLECTIVE +0x20 (`COLLECTIVE_TYPE`, spec 003 §6:
//! ALL_REDUCE = 0x01). The other names follow spec 001 §3's op-class ids (decision D6).

use crate::field_enum::field_enum;

field_enum! {
    /// A collective operation kind (spec 003 §6; decision D6).
    CollectiveType / COLLECTIVE_TYPE {
        /// All-gather (op-class 0, spec 001 §3).
        AllGather = 0 => "ALL_GATHER",
        /// All-reduce (spec 003 §6: 0x01).
        AllReduce = 1 => "ALL_REDUCE",
        /// Reduce-scatter (op-class 4).
        ReduceScatter = 4 => "REDUCE_SCATTER",
        /// All-to-all (op-class 7).
        AllToAll = 7 => "ALL_TO_ALL",
        /// Permute (op-class 8).
        Permute = 8 => "PERMUTE",
    }
}
