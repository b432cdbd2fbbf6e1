//! PSEUDO_INST 0xDF (reference §4.2): a sub-op byte at +12 (1 EXIT_EXECUTION, 2
//! LIBRARY_RELOAD_INDEX); spec 000 §6.3 tests `buf[O+12] == 1` for the exit branch fix-up.

use crate::field_enum::field_enum;
use crate::layout::view;

field_enum! {
    /// The PSEUDO_INST sub-operation at +12.
    PseudoInstOp / PSEUDO_INST_OP {
        /// End of execution: lowered to a branch to the POSTAMBLE (spec 000 §6.3).
        ExitExecution = 1 => "EXIT_EXECUTION",
        /// Reload a library index.
        LibraryReloadIndex = 2 => "LIBRARY_RELOAD_INDEX",
    }
}

view! {
    /// A PSEUDO_INST slot.
    PseudoInst / PseudoInstMut = PSEUDO_INST "PSEUDO_INST" {
        /// +0x0C the sub-operation.
        sub_op: enum(PseudoInstOp) @ 0x0C, Always;
    }
}
