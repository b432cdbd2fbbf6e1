//! PSEUDO_BRANCH_LABEL 0xCC: the label a source COMPARE_BRANCH / PSEUDO_BRANCH_PREFETCH_HINT
//! names; lowering consumes it (decision D50). Its id is the u32 at +0x0C (decision D53; 0 in
//! every real file, reference §4.5).

use crate::layout::view;

view! {
    /// A PSEUDO_BRANCH_LABEL slot (decision D53).
    BranchLabel / BranchLabelMut = BRANCH_LABEL "PSEUDO_BRANCH_LABEL" {
        /// +0x0C the label id.
        label: u32 @ 0x0C, Always;
    }
}
