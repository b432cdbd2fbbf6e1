//! PSEUDO_TENSOR_LOAD (0xCE) / PSEUDO_TENSOR_STORE (0xCD), decision D157: the pseudo is a MEM_2D
//! access with a variable where the real record has an address (S5 `PSEUDO_MEM_2D_STRUCT`), so it
//! lowers 1 -> 1 like the runtime's other var-addressed pseudos (spec 001 §1: the dge arm resolves
//! DIRECT2D vars, the collective arms PTC vars): the same 64 bytes with the opcode made real
//! (TENSOR_LOAD 0xAA / TENSOR_STORE 0xAB) and `start_addr` the var's device address
//! ([`super::var_address`]); dtype, source, counts, steps, registers and events are kept. One
//! record for one slot: no IP-delta row (spec 000 §5; spec 000 §6.3: "translate_pseudo_instrs only
//! emits INSERT/DELETE").

use neff_isa::builder::add_ins;
use neff_isa::payload::{Mem2dMut, TensorLoadPseudo};
use neff_isa::{Opcode, SLOT_BYTES, Slot, SlotBuf};

use super::context::LowerContext;
use super::error::LowerErrorKind;
use super::lowered::BlockWriter;
use super::var_address::var_address;

/// The highest address an ADDR8 immediate holds: its top byte is the marker, 0 = immediate.
const ADDR8_IMMEDIATE_MAX: u64 = (1 << 56) - 1;

/// 0xCE -> TENSOR_LOAD, 0xCD -> TENSOR_STORE, with the var resolved.
pub(super) fn translate_tensor_access(
    ctx: &LowerContext<'_>,
    slot: &[u8; SLOT_BYTES],
    out: &mut BlockWriter<'_, '_>,
) -> Result<(), LowerErrorKind> {
    let real = if Opcode(slot[0]) == Opcode::PSEUDO_TENSOR_STORE {
        Opcode::TENSOR_STORE
    } else {
        Opcode::TENSOR_LOAD
    };
    let pseudo = TensorLoadPseudo(Slot::new(slot));
    let addr = var_address(ctx, pseudo.var_id(), pseudo.var_offset())?;
    if addr > ADDR8_IMMEDIATE_MAX {
        return Err(LowerErrorKind::AddressNotImmediate { addr });
    }
    let mut rec = SlotBuf(*slot);
    rec.0[0] = real.0;
    Mem2dMut(&mut rec).addr(addr);
    let off = out.bytes().len();
    add_ins(out.bytes(), off, &rec.0);
    Ok(())
}
