//! The numeric codes the builders stamp: opcode bytes of the control records, descriptor enums
//! (BR_CMP_OP, BR_TARGET_MODE, DATA_SRC, DTYPE, ALU_OP) and event modes.
//!
//! Values come from spec 001 §2/§4 where it states them, otherwise from the reference's v2+
//! opcode table (reference §4.2) and enums (reference §4.1, §4.7); the few it leaves open are
//! decision D52. Every value the crate's one opcode table or enum tables name is taken from them
//! (`Opcode`, `AluOp`, `BrCmpOp`, `BrTargetMode`, `DataSrc`, `Dtype`, `WaitMode`, `UpdateMode`);
//! only the ones they leave unnamed are numbers here.

use crate::{AluOp, BrCmpOp, BrTargetMode, DataSrc, Dtype, Opcode, UpdateMode, WaitMode};

/// `inst_word_len` = 16 four-byte words = 64 B (spec 003 §1.1): byte 1 of every record.
pub const INST_WORD_LEN: u8 = crate::INST_NWORDS;

/// `header.debug_hint = 2`, the rel-encoded branch marker (spec 001 §2 add_cmp_imm_br_rel).
pub const DEBUG_HINT_REL: u8 = 2;

/// EVENT_SEMAPHORE / CTRL_ES, opcode word 0x10a0 (spec 001 §4).
pub const OP_EVENT_SEMAPHORE: u8 = Opcode::EVENT_SEMAPHORE.0;
/// NOP (reference §4.2: 0xa4; the dbg_cc_nop trigger of spec 001 §3).
pub const OP_NOP: u8 = Opcode::NOP.0;
/// WRITE / CTRL_WR, the add_wr32 doorbell and DMA tail write (reference §4.2: 0xa5; decision D52:
/// spec 003 §4's "ALL opcode 0x69" is the V1 TONGA number).
pub const OP_WRITE: u8 = Opcode::WRITE.0;
/// NOTIFY (reference §4.2: 0xa6).
pub const OP_NOTIFY: u8 = Opcode::NOTIFY.0;
/// ALU_OP / CTRL_AL, opcode word 0x10a8 (spec 001 §2).
pub const OP_ALU: u8 = Opcode::ALU_OP.0;
/// COMPARE_BRANCH / CTRL_BR, opcode word 0x10a9 (spec 001 §2).
pub const OP_COMPARE_BRANCH: u8 = Opcode::COMPARE_BRANCH.0;
/// TENSOR_LOAD (reference §4.2: 0xaa), the 32-bit register load of add_ldr32_addr (D52).
pub const OP_TENSOR_LOAD: u8 = Opcode::TENSOR_LOAD.0;
/// TENSOR_STORE (reference §4.2: 0xab), the 32-bit stores of add_str32_* (D52).
pub const OP_TENSOR_STORE: u8 = Opcode::TENSOR_STORE.0;
/// EVENT_SEMAPHORE_RANGE_CLEAR / CTRL_ER, opcode word 0x10b0 (spec 001 §4).
pub const OP_EVENT_SEMAPHORE_RANGE_CLEAR: u8 = Opcode::EVENT_SEMAPHORE_RANGE_CLEAR.0;
/// POLL_SEM / CTRL_POLL_SEM, opcode word 0x10b3 (spec 001 §4).
pub const OP_POLL_SEM: u8 = Opcode::POLL_SEM.0;
/// BRANCH_PREFETCH_HINT, opcode word 0x10b5 (spec 001 §2 add_br_hint_rel_imm).
pub const OP_BRANCH_PREFETCH_HINT: u8 = Opcode::BRANCH_PREFETCH_HINT.0;

/// BR_CMP_OP "always" for the unconditional add_br_rel (decision D52).
pub const BR_ALWAYS: u8 = BrCmpOp::Always as u8;
/// BR_CMP_OP EQIMM (spec 001 §2).
pub const BR_EQIMM: u8 = BrCmpOp::EqImm as u8;
/// BR_CMP_OP NEIMM (decision D52).
pub const BR_NEIMM: u8 = BrCmpOp::NeImm as u8;
/// BR_CMP_OP LTIMM (decision D52).
pub const BR_LTIMM: u8 = BrCmpOp::LtImm as u8;
/// BR_CMP_OP GTIMM (spec 001 §2: 0x30806 = {GTIMM 6, INT32 8, REL_IMM 3}).
pub const BR_GTIMM: u8 = BrCmpOp::GtImm as u8;

/// BR_TARGET_MODE REGISTER (spec 001 §2).
pub const BR_TARGET_REGISTER: u8 = BrTargetMode::Register as u8;
/// BR_TARGET_MODE RELATIVE_IMMEDIATE (spec 001 §2).
pub const BR_TARGET_REL_IMM: u8 = BrTargetMode::RelativeImmediate as u8;
/// BR_TARGET_MODE RELATIVE_REGISTER (spec 001 §2).
pub const BR_TARGET_REL_REGISTER: u8 = BrTargetMode::RelativeRegister as u8;

/// DATA_SRC REGISTER (spec 001 §2).
pub const DATA_SRC_REGISTER: u8 = DataSrc::Register as u8;
/// DATA_SRC IMMEDIATE (spec 001 §2).
pub const DATA_SRC_IMMEDIATE: u8 = DataSrc::Immediate as u8;

/// DTYPE INT32 (spec 001 §2, spec 003 §6).
pub const DTYPE_INT32: u8 = Dtype::Int32 as u8;
/// DTYPE UINT32 (spec 001 §2: the logical ops use it).
pub const DTYPE_UINT32: u8 = Dtype::Uint32 as u8;

/// ALU_OP BYPASS (reference §4.7), the mov32 form.
pub const ALU_BYPASS: u8 = AluOp::Bypass as u8;
/// ALU_OP ADD (spec 001 §2, reference §4.7).
pub const ALU_ADD: u8 = AluOp::Add as u8;
/// ALU_OP SUBTRACT (reference §4.7).
pub const ALU_SUBTRACT: u8 = AluOp::Subtract as u8;
/// ALU_OP MIN (reference §4.7), the poll-sem sub-op (spec 001 §4).
pub const ALU_MIN: u8 = AluOp::Min as u8;
/// ALU_OP BITWISE_AND (reference §4.7).
pub const ALU_BITWISE_AND: u8 = AluOp::BitwiseAnd as u8;
/// ALU_OP BITWISE_OR (reference §4.7).
pub const ALU_BITWISE_OR: u8 = AluOp::BitwiseOr as u8;
/// ALU_OP BITWISE_XOR (reference §4.7).
pub const ALU_BITWISE_XOR: u8 = AluOp::BitwiseXor as u8;
/// ALU_OP LOGICAL_SHIFT_LEFT (reference §4.7).
pub const ALU_LOGICAL_SHIFT_LEFT: u8 = AluOp::LogicalShiftLeft as u8;
/// ALU_OP LOGICAL_SHIFT_RIGHT (reference §4.7).
pub const ALU_LOGICAL_SHIFT_RIGHT: u8 = AluOp::LogicalShiftRight as u8;

/// wait_mode SEM_EQ_IMM (reference §4.1).
pub const WAIT_SEM_EQ_IMM: u8 = WaitMode::SemEqImm as u8;
/// wait_mode SEM_GE_IMM (reference §4.1).
pub const WAIT_SEM_GE_IMM: u8 = WaitMode::SemGeImm as u8;
/// update_mode SEM_INC on complete, 0x13 (spec 003 §11, reference §4.1): what a collective must use.
pub const UPDATE_SEM_INC_COMPLETE: u8 = UpdateMode::SemIncComplete as u8;
/// update_mode SEM_ADD_IMM_COMPLETE = 21 (spec 001 §4 add_semaphore_inc).
pub const UPDATE_SEM_ADD_IMM_COMPLETE: u8 = UpdateMode::SemAddImmComplete as u8;
/// update_mode SEM_WR_IMM on complete = 9 + 16 (reference §4.1).
pub const UPDATE_SEM_WR_IMM_COMPLETE: u8 = UpdateMode::SemWrImmComplete as u8;
