//! Register ops in the data path's service: ALU_OP (the timing model's own [`crate::registers`]
//! arithmetic, so a register means the same in both models), MOVE (register <- immediate,
//! decision D136) and PSEUDO_TENSOR_LOAD (registers <- the state buffer, decision D157), whose
//! registers the offset-register DMAs and later ALU_OPs read.

use neff_isa::DataSrc;
use neff_isa::payload::{AluOpInst, MoveReg, TensorLoadPseudo};
use neff_kelf::VarType;

use super::convert;
use super::core::Core;
use super::memory::Mem;
use crate::registers::{Width, alu};

/// ALU_OP.
pub(crate) fn alu_op(core: &mut Core<'_>, e: usize, a: &AluOpInst<'_>) -> Result<(), String> {
    let op = a
        .op()
        .map_err(|b| format!("ALU op {b:#04x} has no semantics"))?;
    let width = Width::of_dtype(a.dtype().map_or_else(|raw| raw, |d| d as u8));
    let regs = &mut core.engines[e].regs;
    let b = match a.src1() {
        Ok(DataSrc::Register) => regs.get(a.imm() as u8),
        Ok(DataSrc::Immediate) => a.imm(),
        Err(x) => return Err(format!("src1 selector {x} has no semantics")),
    };
    let v = alu(op, width, regs.get(a.src0()), b)
        .ok_or_else(|| format!("ALU op {} has no register semantics", op.text()))?;
    regs.set(a.dst(), v);
    Ok(())
}

/// MOVE: the register takes the immediate.
pub(crate) fn move_reg(core: &mut Core<'_>, e: usize, m: &MoveReg<'_>) -> Result<(), String> {
    if m.src() != Ok(DataSrc::Immediate) {
        return Err(format!("MOVE source {:?} has no semantics", m.src()));
    }
    core.engines[e].regs.set(m.reg(), u64::from(m.imm()));
    Ok(())
}

/// PSEUDO_TENSOR_LOAD of one element from the state buffer into the register `data` names.
pub(crate) fn tensor_load(
    core: &mut Core<'_>,
    e: usize,
    t: &TensorLoadPseudo<'_>,
) -> Result<(), String> {
    if (t.num_elem0(), t.num_elem1()) != (1, 1) || t.datasrc() != Ok(DataSrc::Register) {
        return Err("only a one-element load into a register has semantics".into());
    }
    let dtype = t
        .dtype()
        .map_err(|b| format!("dtype {b:#04x} is not a dtype"))?;
    let size = convert::size(dtype).ok_or("dtype has no width")?;
    let v = core
        .var(t.var_id())
        .ok_or_else(|| format!("var_id {} is not in def.json var", t.var_id()))?;
    if v.ty != VarType::StateBuffer {
        return Err(format!(
            "a load from `{}` ({}) has no semantics",
            v.name,
            v.ty.name()
        ));
    }
    let o = t.var_offset() as usize;
    let b = core
        .chip
        .sbuf
        .get(o..o + size)
        .ok_or_else(|| format!("SB byte {o} is outside the state buffer"))?;
    let mut w = [0u8; 8];
    w[..size].copy_from_slice(b);
    (core.chip.touches).record(Mem::Sbuf, false, dtype, [(o, size)]);
    let r = (t.data() & 0xff) as u8;
    core.engines[e].regs.set(r, u64::from_le_bytes(w));
    Ok(())
}
