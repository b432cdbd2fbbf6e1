//! Register ops in the data path's service: ALU_OP (the timing model's own [`crate::registers`]
//! arithmetic, so a register means the same in both models), MOVE (register <- immediate,
//! decision D136) and PSEUDO_TENSOR_LOAD (registers <- the state buffer, decision D157), whose
//! registers the offset-register DMAs and later ALU_OPs read.

use neff_isa::DataSrc;
use neff_isa::payload::{AluOpInst, MoveReg, TensorLoadPseudo};
use neff_kelf::VarType;

use super::convert;
use super::core::Core;
use super::memory::{Mem, OnChip, Space};
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
    let pieces = OnChip::flat_pieces(Space::Sbuf, o, size)
        .ok_or_else(|| format!("SB byte {o} is outside the state buffer"))?;
    let (mut w, mut at) = ([0u8; 8], 0);
    for (i, l) in pieces {
        w[at..at + l].copy_from_slice(&core.chip.sbuf[i..i + l]);
        at += l;
    }
    (core.chip.touches).record(Mem::Sbuf, false, dtype, [(o, size)]);
    let r = (t.data() & 0xff) as u8;
    core.engines[e].regs.set(r, u64::from_le_bytes(w));
    Ok(())
}

#[cfg(test)]
mod tests {
    use neff_isa::payload::{AluOpMut, MoveRegMut, TensorLoadPseudoMut};
    use neff_isa::{AluOp, DataSrc, Dtype, EngineType, Opcode, SlotBuf};
    use neff_kelf::VarType;

    use super::super::hbm::Hbm;
    use super::super::testing::{core, fill, run, slot, stream, var};

    /// MOVE of an immediate into `reg` (moe_v6b's shape: fp32 1.0 into register 61, D136).
    fn move_imm(reg: u8, imm: u32) -> SlotBuf {
        slot(Opcode::MOVE, |b| {
            MoveRegMut(b)
                .dtype(Dtype::Uint32 as u8)
                .src(DataSrc::Immediate as u8)
                .reg(reg)
                .imm(imm);
        })
    }

    /// ALU_OP `dst = src0 op (imm | register imm)` at `dtype`'s width.
    fn alu(op: AluOp, dtype: Dtype, dst: u8, src0: u8, src1: DataSrc, imm: u64) -> SlotBuf {
        slot(Opcode::ALU_OP, |b| {
            AluOpMut(b)
                .op(op as u8)
                .dtype(dtype as u8)
                .src1(src1 as u8)
                .dst(dst)
                .src0(src0)
                .imm(imm);
        })
    }

    /// PSEUDO_TENSOR_LOAD of one u32 at byte `offset` of var `var_id` into register `reg`.
    fn load_u32(var_id: u32, offset: u32, reg: u32) -> SlotBuf {
        slot(Opcode::PSEUDO_TENSOR_LOAD, |b| {
            TensorLoadPseudoMut(b)
                .dtype(Dtype::Uint32 as u8)
                .datasrc(DataSrc::Register as u8)
                .num_elem0(1)
                .num_elem1(1)
                .var_id(var_id)
                .var_offset(offset)
                .data(reg);
        })
    }

    /// Runs `slots` on Pool (no vars) and returns register `r` of its one engine.
    fn register_after(slots: &[SlotBuf], r: u8) -> u64 {
        let bytes = stream(slots);
        let mut c = core(EngineType::Pool, &bytes, Vec::new());
        run(&mut c, &mut Hbm::default()).unwrap();
        c.engines[0].regs.get(r)
    }

    #[test]
    fn move_sets_the_register_to_the_immediate() {
        assert_eq!(
            register_after(&[move_imm(61, 0x3f80_0000)], 61),
            0x3f80_0000
        );
    }

    /// The register chain moe_v6b builds before an offset-register DMA: a MOVE, then ALU_OPs
    /// with an immediate and with a register operand, at 32-bit width (hand-computed).
    #[test]
    fn alu_ops_compute_from_immediates_and_registers_at_their_width() {
        let slots = [
            move_imm(61, 0xffff_fff0),
            // r3 = r61 + 0x20 wraps at 32 bits: 0xffff_fff0 + 0x20 = 0x1_0000_0010 -> 0x10.
            alu(AluOp::Add, Dtype::Uint32, 3, 61, DataSrc::Immediate, 0x20),
            // r4 = r3 * r5 where r5 = 3: 0x30.
            move_imm(5, 3),
            alu(AluOp::Mult, Dtype::Uint32, 4, 3, DataSrc::Register, 5),
        ];
        assert_eq!(register_after(&slots[..2], 3), 0x10);
        assert_eq!(register_after(&slots, 4), 0x30);
    }

    /// PSEUDO_TENSOR_LOAD of one u32 from the state buffer into the register its `data` names
    /// (D157: moe_v6b's Pool slot 11 loads register 31).
    #[test]
    fn tensor_load_reads_one_state_buffer_element_into_a_register() {
        let bytes = stream(&[load_u32(0, 0x40, 31)]);
        let sb = vec![var(0, "SB", VarType::StateBuffer, None)];
        let mut c = core(EngineType::Pool, &bytes, sb);
        fill(&mut c, 0x40, 1, Dtype::Uint32, &[123_456.0]);
        run(&mut c, &mut Hbm::default()).unwrap();
        assert_eq!(c.engines[0].regs.get(31), 123_456);
    }

    #[test]
    fn a_move_from_a_register_and_a_load_from_dram_stop_with_their_reason() {
        let from_reg = slot(Opcode::MOVE, |b| {
            MoveRegMut(b).src(DataSrc::Register as u8).reg(1);
        });
        let bytes = stream(&[from_reg]);
        let mut c = core(EngineType::Pool, &bytes, Vec::new());
        let e = run(&mut c, &mut Hbm::default()).unwrap_err().to_string();
        assert!(e.contains("MOVE source"), "{e}");

        let bytes = stream(&[load_u32(1, 0, 31)]);
        let vars = vec![var(1, "x", VarType::Input, Some(0))];
        let mut c = core(EngineType::Pool, &bytes, vars);
        let e = run(&mut c, &mut Hbm::default()).unwrap_err().to_string();
        assert!(e.contains("a load from `x`"), "{e}");
    }
}
