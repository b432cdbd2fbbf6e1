//! The runtime's micro-op builders (spec 001 §2, §4): the `add_*` family that lowering composes
//! into per-pseudo recipes, each zeroing one 64-byte record, stamping the opcode word and its
//! operands, optionally copying the 8-byte events tuple to +0x04, and appending it through the
//! one sink [`add_ins`].
//!
//! Every builder has the runtime's ABI shape `(chunk, offset, operands..., events) -> offset`:
//! it writes at `offset` of `chunk` and returns `offset + 64`. Events are the packed 8-byte tuple
//! of [`get_event_semaphore_wait_update`] (`None` = the runtime's `events == NULL`: zero).
//!
//! Where spec 001 names a builder's role but not its bytes, the layout is derived from the record
//! layouts it does give (decision D52); each file's doc comment says which is which.

mod alu;
mod branch;
mod codes;
mod dma;
mod events;
mod memory;
mod patcher;
mod record;
mod semaphore;
mod sink;
mod sync;

pub use alu::{
    AluSrc1, add_add32_imm, add_add32_reg, add_alu, add_bit_and_imm, add_bit_or_imm,
    add_bit_xor_imm, add_mov32_imm, add_shl32_imm, add_shr32_imm, add_sub32_imm,
};
pub use branch::{
    BranchRangeError, add_br_hint_rel_imm, add_br_rel, add_br_rel_reg, add_cmp_imm_br_rel,
    add_cmpeq_imm_br_rel, add_cmpgt_imm_br_rel, add_cmplt_imm_br_rel, add_cmpne_imm_br_rel,
    check_rel_offset,
};
pub use codes::{
    ALU_ADD, ALU_BITWISE_AND, ALU_BITWISE_OR, ALU_BITWISE_XOR, ALU_BYPASS, ALU_LOGICAL_SHIFT_LEFT,
    ALU_LOGICAL_SHIFT_RIGHT, ALU_MIN, ALU_SUBTRACT, BR_ALWAYS, BR_EQIMM, BR_GTIMM, BR_LTIMM,
    BR_NEIMM, BR_TARGET_REGISTER, BR_TARGET_REL_IMM, BR_TARGET_REL_REGISTER, DATA_SRC_IMMEDIATE,
    DATA_SRC_REGISTER, DEBUG_HINT_REL, DTYPE_INT32, DTYPE_UINT32, INST_WORD_LEN, OP_ALU,
    OP_BRANCH_PREFETCH_HINT, OP_COMPARE_BRANCH, OP_EVENT_SEMAPHORE, OP_EVENT_SEMAPHORE_RANGE_CLEAR,
    OP_NOP, OP_NOTIFY, OP_POLL_SEM, OP_TENSOR_LOAD, OP_TENSOR_STORE, OP_WRITE,
    UPDATE_SEM_ADD_IMM_COMPLETE, UPDATE_SEM_INC_COMPLETE, UPDATE_SEM_WR_IMM_COMPLETE,
    WAIT_SEM_EQ_IMM, WAIT_SEM_GE_IMM,
};
pub use dma::{add_dma_bundle_rearm, add_wr32};
pub use events::{EVENTS_OFFSET, get_event_semaphore_wait_update};
pub use memory::{add_ldr32_addr, add_str32_addr, add_str32_imm_addr, add_str32_imm_reg};
pub use patcher::{PatchRangeError, update_evtsema, update_evtsema_first_and_last_inst};
pub use record::{Record, new_record};
pub use semaphore::{
    add_evsem, add_poll_sem, add_sema_clear, add_semaphore_inc, add_semaphore_inc_val,
    add_semaphore_set, add_semaphore_wait_eq_and_clear,
};
pub use sink::add_ins;
pub use sync::{add_nop, add_notify, add_sema_reset, add_sync_barrier};
