//! The scheduling/dependency block hung off +0xD0 (spec 002 §2): dependency lists, the symbolic
//! order, the resolved schedule slots, sync info and debug provenance.
//!
//! The spec allocates it separately (0xA98 bytes); here it is an inline struct, since only its
//! serialized content matters outside libBIR.

use serde_json::Value;

use crate::dep_list::DepList;
use crate::edge::Edge;
use crate::ids::InstId;

/// The serialized part of the +0xD0 block, plus the reverse descendents list (spec 002 §2, §5).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Schedule {
    /// Normal dependencies (set +0x08, list +0x20): `"dependencies"`.
    pub dependencies: DepList,
    /// Loop-carried dependencies (set +0x4A8, list +0x4C0): `"loop_carried_dependencies"`.
    pub loop_carried: DepList,
    /// `"unroll_dependencies"`: the unroll list, in order.
    pub unroll: Vec<Edge>,
    /// The reverse descendents (successors) list (+0x270): instructions that depend on this one,
    /// normal edges only. Not serialized; rebuilt by the reader and kept by `add_dependency`.
    pub descendents: Vec<InstId>,
    /// `"order"` (+0xA68): the symbolic multi-dimensional schedule key, a vector of quasi-affine
    /// expressions kept structurally as JSON values.
    pub order: Vec<Value>,
    /// `"scheduled_start"` (+0xA88): the resolved start cycle.
    pub scheduled_start: Option<i64>,
    /// `"scheduled_end"` (+0xA90): the resolved end cycle.
    pub scheduled_end: Option<i64>,
    /// `"sync_info"` (+0x9F0 optional).
    pub sync_info: Option<Value>,
    /// `"debug"` (+0x960 optional).
    pub debug: Option<Value>,
}

impl Schedule {
    /// The spec's `numDependencies()`: distinct normal dependencies (the set's element count).
    pub fn num_dependencies(&self) -> usize {
        self.dependencies.distinct_len()
    }
}
