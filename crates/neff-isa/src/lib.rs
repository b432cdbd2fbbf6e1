//! The 64-byte TPB instruction word and the 8-byte SP word (spec 003): decode, encode, text,
//! validation, and the runtime's micro-op builders (spec 001 §2, §4).
//!
//! # Stable names other crates use
//!
//! * [`Slot`] (zero-copy view over `&[u8; 64]`) and [`SlotBuf`] (owned, with `put_*` setters):
//!   header accessors [`Slot::opcode`], [`Slot::inst_word_len`], [`Slot::debug_cmd`] (trace mode,
//!   halt bit), [`Slot::debug_hint`], [`Slot::events`], [`Slot::legacy_events`]. [`SLOT_BYTES`]
//!   (the one slot size, with [`SLOT_SHIFT`]), [`INST_NWORDS`].
//! * [`Events`] (8-byte semaphore form, the default: decision D2), [`LegacyEvents`] (4-byte),
//!   [`EventsExtended`] (CTRL_ES +0x20), [`WaitMode`], [`UpdateMode`], [`Dialect`].
//! * [`Opcode`] (newtype with a constant per mnemonic, e.g. [`Opcode::PSEUDO_DMA_TRIGGER`]),
//!   [`OpcodeInfo`] / [`OPCODES`] built from the one table [`for_each_opcode!`]; V1 names and the
//!   `base | engine << 5` decomposition via [`Opcode::v1_name`], [`Opcode::v1_base`],
//!   [`Opcode::v1_engine`].
//! * [`OpKind`] (compute, DMA, sync, control, pseudo: what an opcode is for) and
//!   [`OpKindCounts`] (a stream's instruction mix).
//! * [`SlotIndex`], [`ByteOffset`], [`slots`] (iterator over a stream with `remainder()`).
//! * Typed payload views in [`payload`] (e.g. [`payload::DmaTrigger`]); field enums [`Dtype`],
//!   [`AluOp`], [`DataSrc`], [`CollectiveType`], [`BrCmpOp`], [`BrTargetMode`]; the declarative
//!   field lists behind them in [`layout`].
//! * Text: [`text::print_slot`], [`text::disassemble`], [`text::parse_line`], [`text::assemble`]
//!   (decision D4; `assemble(disassemble(b)) == b` for every byte string).
//! * [`validate::validate`] (every diagnostic with [`SlotIndex`] and [`ByteOffset`]),
//!   [`explain::explain`] (the `neff dump` rows), [`sp`] (the 8-byte SP word, spec 003 §3.2).
//!
//! # Example
//!
//! ```
//! use neff_isa::{slots, Opcode};
//! // spec 003 §7.2 pool.bin slot 2: EVENT_SEMAPHORE waiting $S[11] > 0.
//! let mut bin = [0u8; 64];
//! bin[..6].copy_from_slice(&[0xa0, 0x10, 0, 0, 0x04, 0x0b]);
//! let (idx, slot) = slots(&bin).next().unwrap();
//! assert_eq!(idx.0, 0);
//! assert_eq!(slot.opcode(), Opcode::EVENT_SEMAPHORE);
//! assert_eq!(slot.events().wait_idx, 11);
//! ```

mod act_func;
mod alu_op;
mod branch;
pub mod builder;
mod collective_type;
pub mod continuation;
mod dtype;
mod engine;
mod events;
pub mod explain;
mod field_enum;
mod imm_src;
pub mod layout;
mod op_kind;
mod opcode;
pub mod payload;
mod pe_mode;
mod reduce;
mod slot;
pub mod sp;
mod stream;
pub mod text;
pub mod validate;

pub use act_func::{ACT_FUNC, ActFunc};
pub use alu_op::{ALU_OP, AluOp, DATA_SRC, DataSrc};
pub use branch::{BR_CMP_OP, BR_TARGET_MODE, BrCmpOp, BrTargetMode};
pub use collective_type::{COLLECTIVE_TYPE, CollectiveType};
pub use dtype::{DTYPE, Dtype};
pub use engine::{EngineType, UnknownEngine};
pub use events::{Dialect, Events, EventsExtended, LegacyEvents, UpdateMode, WaitMode};
pub use field_enum::EnumTable;
pub use imm_src::{BIAS_SRC, BiasSrc, IMM_SRC, ImmSrc};
pub use op_kind::{OpKind, OpKindCounts};
pub use opcode::{
    Generation, Generations, OPCODES, OpClass, Opcode, OpcodeInfo, V1_OPCODES, V1Engine,
};
pub use pe_mode::{FP32_MODE, Fp32Mode, TRANSPOSE_MODE, TransposeMode};
pub use reduce::{ACC_CMD, AccCmd, ORDERING_MODE, OrderingMode, REDUCE_DIM, ReduceDim};
pub use slot::{INST_NWORDS, SLOT_BYTES, SLOT_SHIFT, Slot, SlotBuf, TraceMode};
pub use stream::{ByteOffset, SlotIndex, Slots, slots};
